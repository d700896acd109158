import torch

from input import STGCN


class Namespace:
    pass


args = Namespace()
args.gso = torch.eye(3)
args.device = "cpu"
args.order = 2
config = Namespace()
config.adj = torch.ones(3, 3) / 3
model = STGCN(args, config)
