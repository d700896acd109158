"""A multi-line value keeps its comments; the new call is laid out as black would."""

import torch
import torch.nn as nn


class Rotary(nn.Module):
    def __init__(self, dim=8, base=10000.0, max_len=4):
        super().__init__()
        # inverse frequencies, one per pair of channels
        self.inv_freq = 1.0 / (
            base
            ** (
                torch.arange(0, dim, 2).float()  # even channels only
                / dim
            )
        )
        self.mask = torch.tril(  # lower triangle
            torch.ones(max_len, max_len)
        )
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x) * self.inv_freq.repeat(2)
