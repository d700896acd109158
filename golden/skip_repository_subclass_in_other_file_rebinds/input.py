"""A subclass in another file of the repository binds the attribute to a non-tensor: skipped."""

import torch
import torch.nn as nn


class History(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.values = torch.zeros(n)
        self.decay = torch.linspace(1.0, 0.5, n)

    def forward(self, x):
        return x * self.decay
