"""Tensors stored with setattr(self, name, t) are reported, not rewritten."""

import torch
import torch.nn as nn


class Banks(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        setattr(self, "alpha", torch.ones(1))
        for i in range(n):
            setattr(self, f"bank_{i}", torch.zeros(3))

    def forward(self, x):
        return x * self.alpha + self.bank_0
