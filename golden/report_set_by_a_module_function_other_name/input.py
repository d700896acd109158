"""The instance's parameter may have any name; a function that binds nothing on it, or
that __init__ itself calls, is not read."""

import torch
import torch.nn as nn


class Warper(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.n = n
        describe(self)

    def forward(self, x):
        build_grid(self, x.shape[-1])
        log_shapes(self, x)
        return x + self.grid


def build_grid(layer, width):
    layer.grid = torch.linspace(-1, 1, width)


def describe(layer):
    layer.name = "warper"


def log_shapes(layer, x):
    return layer.n, x.shape
