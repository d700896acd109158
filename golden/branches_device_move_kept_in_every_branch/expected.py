"""An attribute bound in several branches keeps or drops its device moves in all of them
together: here construction reads it after the if, so every branch keeps its move."""

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, n=4, causal=True, device="cpu"):
        super().__init__()
        self.lin = nn.Linear(n, n)
        if causal:
            self.register_buffer(
                "mask", torch.tril(torch.ones(n, n)).to(device), persistent=False
            )
        else:
            self.register_buffer("mask", torch.ones(n, n).to(device), persistent=False)
        self.density = float(self.mask.mean())

    def forward(self, x):
        return self.lin(x) @ self.mask * self.density
