"""Several statements on one line, separated by semicolons."""

import torch
import torch.nn as nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.low = torch.zeros(2); self.high = torch.ones(2)
        n = 3; self.ids = torch.arange(n)  # ids on the same line as n

    def forward(self, x):
        return x.clamp(self.low.min().item(), self.high.max().item()) + self.ids.sum()
