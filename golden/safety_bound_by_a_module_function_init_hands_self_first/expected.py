"""__init__ hands self to a function of the module that binds `grid` plainly, then binds it
itself: registering it there would raise KeyError ("attribute 'grid' already exists"), and
the function's statement is not the class's to rewrite, so it is reported."""

import torch
import torch.nn as nn


class Warp(nn.Module):
    def __init__(self, size=8):
        super().__init__()
        build_grid(self, size)
        self.grid = torch.linspace(-1, 1, size)

    def forward(self, x):
        return x + self.grid


def build_grid(self, size):
    self.grid = torch.zeros(size)
