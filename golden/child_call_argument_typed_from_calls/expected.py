import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x, mask):
        return x.masked_fill(mask, 0.0)


class Encoder(nn.Module):
    """An attribute only handed to a child module's call: a tensor where the repository's
    calls pass one (make_encoder below)."""

    def __init__(self, mask, keep):
        super().__init__()
        self.register_buffer("mask", mask, persistent=False)
        self.keep = keep
        self.block = Block()

    def forward(self, x):
        return self.block(x, self.mask) * self.keep


def make_encoder(n=3):
    return Encoder(torch.eye(n, dtype=torch.bool), keep=0.5)
