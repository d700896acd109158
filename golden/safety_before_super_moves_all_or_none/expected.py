"""Statements before super().__init__() move after it all together or not at all: moving
some would change what the others are assigned before, and a second run would decide them
otherwise."""

import torch
from torch import nn


class Pair(nn.Module):
    def __init__(self, n=3):
        self.mask, self.b = torch.ones(n), torch.ones(n)
        self.scale, self.b = torch.ones(n), torch.ones(n)
        super().__init__()

    def forward(self, x):
        return x * self.mask * self.scale + self.b


class Movable(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.register_buffer("mask", torch.ones(n), persistent=False)

    def forward(self, x):
        return x * self.mask
