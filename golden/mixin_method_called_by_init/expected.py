"""A tensor bound by a method of a plain mixin that __init__ calls is reported: the method
runs for every class that inherits it, and rewriting it is right only if each of them is a
module that has run Module.__init__ first."""

import torch
import torch.nn as nn


class TableMixin:
    def build_table(self, n):
        self.table = torch.arange(n)
        self.scale = 2.0


class Model(TableMixin, nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.build_table(n)

    def forward(self, x):
        return self.lin(x)[..., self.table] * self.scale
