"""A module base bound to another name at module level (`Base = nn.Module`, or one binding
per branch of a top-level `if`) is still nn.Module: its raw tensors are rewritten. A name that
may be bound to `object` is not a module base, and its class is left alone."""

import sys

import torch
import torch.nn as nn

Base = nn.Module

if sys.version_info >= (3, 8):
    LayerBase = nn.Module
else:
    LayerBase = torch.nn.Module

MaybeModule = nn.Module if sys.platform != "win32" else object


class Shift(Base):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("offsets", torch.arange(n), persistent=False)

    def forward(self, x):
        return x + self.offsets


class Mask(LayerBase):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.ones(n, dtype=torch.bool), persistent=False)

    def forward(self, x):
        return x * self.mask


class Table(MaybeModule):
    def __init__(self, n):
        self.table = torch.arange(n)

    def forward(self, x):
        return self.table[x]
