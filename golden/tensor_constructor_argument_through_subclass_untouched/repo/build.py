import torch

from input import ForwardingSub, FromList, FromTensor, Halved, MixedWindow, Unscaled

a = FromTensor(torch.eye(2))
b = FromList([[1.0, 0.0], [0.0, 1.0]])
c = Unscaled(torch.ones(2))
d = Halved()
e = MixedWindow(torch.ones(2))
f = ForwardingSub(torch.eye(2))
