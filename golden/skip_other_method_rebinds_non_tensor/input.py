"""Another method binds the attribute to a non-tensor: a buffer would raise there, so it is skipped."""

import torch
import torch.nn as nn


class Smoother(nn.Module):
    def __init__(self, size=3):
        super().__init__()
        self.kernel = torch.ones(size) / size
        self.history = torch.zeros(size)

    def reset(self):
        self.history = []

    def forward(self, x):
        return x * self.kernel.sum()
