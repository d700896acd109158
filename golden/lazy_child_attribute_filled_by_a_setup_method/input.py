"""A child fills its statistics in a setup method (`calibrate`), after a constructor that
sets them to None; the parent keeps a scaled copy when it calibrates
(`self.scale = self.norm.std * 2`). Read through the child, the statistics are a tensor once
`calibrate` has run, so the parent's attribute is reported with the child's, not left
silent."""

import torch
import torch.nn as nn


class Standardize(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = None
        self.std = None

    def calibrate(self, data: torch.Tensor):
        self.mean = data.mean(0)
        self.std = data.std(0)

    def forward(self, x):
        return (x - self.mean) / self.std


class Regressor(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.norm = Standardize()
        self.lin = nn.Linear(n, 1)
        self.scale = None

    def calibrate(self, data: torch.Tensor):
        self.norm.calibrate(data)
        self.scale = self.norm.std * 2

    def forward(self, x):
        return self.lin(self.norm(x)) * self.scale.mean()
