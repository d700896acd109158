"""A constructor argument the class hands to a torch function where it takes a tensor (any
position or keyword), compares elementwise, or calls a tensor method on (`.gt`, `.to`)
is typed from the repository's calls (repo/main.py): every call passes a tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightedLoss(nn.Module):
    def __init__(self, thresholds, weight=None, LAMBDA=None):
        super().__init__()
        self.thresholds = thresholds
        self.register_buffer("_weight", weight, persistent=False)
        self._lambda = LAMBDA

    def forward(self, x, y):
        return F.cross_entropy(x, y, self._weight)


class NllLoss(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.register_buffer("weight", weight, persistent=False)

    def forward(self, x, y):
        return F.nll_loss(F.log_softmax(x, dim=1), y, weight=self.weight)


class Masked(nn.Module):
    def __init__(self, adj, mask, scale, offsets, table):
        super().__init__()
        self.register_buffer("adj", adj, persistent=False)
        self.register_buffer("mask", mask, persistent=False)
        self.register_buffer("scale", scale, persistent=False)
        self.offsets = offsets
        self.register_buffer("table", table, persistent=False)

    def forward(self, x):
        edges = (self.adj > 0).float()
        ones = torch.ones_like(self.scale)
        shifted = x + self.offsets.to(x.device)
        picked = torch.index_select(x, 0, self.table)
        return x * edges * ones + shifted + self.mask.gt(0) + picked.sum()
