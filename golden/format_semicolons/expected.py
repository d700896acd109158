"""Several statements on one line, separated by semicolons."""

import torch
import torch.nn as nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("low", torch.zeros(2), persistent=False); self.register_buffer("high", torch.ones(2), persistent=False)
        n = 3; self.register_buffer("ids", torch.arange(n), persistent=False)  # ids on the same line as n

    def forward(self, x):
        return x.clamp(self.low.min().item(), self.high.max().item()) + self.ids.sum()
