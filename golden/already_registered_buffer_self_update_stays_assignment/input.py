"""`self.mask = self.mask.bool()` after the buffer is registered updates that buffer
(its persistence is kept): it stays a plain assignment, never a second register_buffer."""

import torch
import torch.nn as nn


class CausalMask(nn.Module):
    def __init__(self, n=4, causal=True):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))
        self.mask = self.mask.bool()
        if causal:
            self.register_buffer("allowed", torch.tril(torch.ones(n, n)))
        else:
            self.register_buffer("allowed", torch.ones(n, n))
        self.allowed = self.allowed.bool()

    def forward(self, x):
        return x.masked_fill(~self.mask, 0.0) + x.masked_fill(~self.allowed, 1.0)
