"""A tensor bound once at the top of the module and kept by a constructor, as it is or in
arithmetic; a number, a name bound twice and a local of the same name are no such tensor."""

import torch
import torch.nn as nn

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
SCALE = 255
TABLE = torch.arange(4)
TABLE = [0, 1, 2, 3]  # bound again: which one a read sees depends on the order


class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = MEAN
        self.inv_std = 1.0 / STD
        self.scale = SCALE
        self.table = TABLE

    def forward(self, x):
        return (x * self.scale - self.mean) * self.inv_std


class Shifted(nn.Module):
    def __init__(self, MEAN):
        super().__init__()
        self.mean = MEAN  # the argument, not the module's constant

    def forward(self, x):
        return x - self.mean
