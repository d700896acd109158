import torch

from input import GraphConv


def build(adj):
    return GraphConv(torch.from_numpy(adj).float(), 16)
