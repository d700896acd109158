import torch

from input import GraphConv


def build(n, dim):
    return GraphConv(dim, adj=torch.eye(n), offset=0.5)


def build_normalised(n, dim):
    adj = torch.ones(n, n) / n
    return GraphConv(dim, adj=adj)
