"""A local tensor filled in by a for loop, then stored on self."""

import torch
import torch.nn as nn


class BandMask(nn.Module):
    def __init__(self, size=6, band=1):
        super().__init__()
        mask = torch.zeros(size, size, dtype=torch.bool)
        for i in range(size):
            lo = max(0, i - band)
            mask[i, lo : i + band + 1] = True
        self.register_buffer("mask", mask, persistent=False)

        weights = torch.zeros(size)
        for i in range(size):
            weights[i] = 1.0 / (i + 1)
        self.register_buffer("decay", weights, persistent=False)

    def forward(self, scores):
        return scores.masked_fill(~self.mask, 0.0) * self.decay
