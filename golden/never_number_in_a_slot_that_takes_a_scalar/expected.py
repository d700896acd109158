"""Kept arguments nothing in the repository types: a threshold handed to torch.gt and a
queue length handed to torch.fmod, slots where another overload takes a plain number, are
no evidence of a tensor (nothing is said); an adjacency handed to torch.mm is reported."""

import torch
import torch.nn as nn


class Matcher(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.positive_overlap = cfg.positive_overlap
        self.queue_size = cfg.queue_size
        self.adj = cfg.adj

    def forward(self, overlaps, index, x):
        mask = torch.gt(overlaps, self.positive_overlap)
        slot = torch.fmod(index, self.queue_size)
        return torch.mm(self.adj, x), mask, slot
