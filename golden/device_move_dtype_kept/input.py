"""Dtype conversions are kept; only the device part of a .to(...) call goes."""

import torch
import torch.nn as nn


class Tables(nn.Module):
    def __init__(self, size=4, device="cpu"):
        super().__init__()
        self.half_table = torch.linspace(0, 1, size).to(torch.float16)
        self.table = torch.linspace(0, 1, size).to(device, torch.float16)
        self.ids = torch.arange(size).to(dtype=torch.int32)
        self.weights = torch.ones(size).to(device=device, dtype=torch.float64)

    def forward(self, x):
        return x * self.table.float() + self.weights.float()[self.ids]
