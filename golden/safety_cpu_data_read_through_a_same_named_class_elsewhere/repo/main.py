from model import Pruner

net = Pruner(3).cuda()
kept = net.mask.numpy()
print(kept)
