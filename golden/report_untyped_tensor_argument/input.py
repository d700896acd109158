"""A constructor argument kept as an attribute and used as only a tensor is used, while no
call in the repository shows what is passed (repo/train.py builds the models from a pickle,
a config object and a dictionary): reported, not rewritten (BUF308)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConv(nn.Module):
    def __init__(self, adj, dim):
        super().__init__()
        self.adj = adj  # loaded by the script
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.mm(self.adj, self.linear(x))


class SparseProp(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.support = config.support

    def forward(self, x):
        return torch.sparse.mm(self.support, x)


class Chebyshev(nn.Module):
    def __init__(self, supports, dim):
        super().__init__()
        self.supports = supports
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        return sum(s @ self.linear(x) for s in self.supports)


class TargetConv(nn.Module):
    # weights made by a hypernetwork and handed in from a dictionary
    def __init__(self, weight, bias):
        super().__init__()
        self.weight = weight
        self.bias = bias

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias)


class Masked(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def forward(self, x):
        return x.masked_fill(self.mask.unsqueeze(0), 0.0)


class Normalization(nn.Module):
    # never built in the repository: the binding itself shows a tensor's view
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean.view(-1, 1, 1)
        self.std = std.view(-1, 1, 1)

    def forward(self, image):
        return (image - self.mean) / self.std
