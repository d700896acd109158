from input import Pruner

net = Pruner(3).cuda()
print(net.mask.numpy())
