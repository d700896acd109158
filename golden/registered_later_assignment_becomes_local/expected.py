"""Assigned, then registered under the same name: register_buffer raises KeyError
("attribute already exists") because the plain attribute is there first.  The assignment
becomes a local; the registration stays as its author wrote it."""

import torch
import torch.nn as nn


class CausalAttention(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.qkv = nn.Linear(n, 3 * n)
        mask = torch.tril(torch.ones(n, n))
        mask = mask.view(1, n, n)
        self.register_buffer("mask", mask)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return (q @ k.transpose(-1, -2)).masked_fill(self.mask[:, : x.shape[1], : x.shape[1]] == 0, 0.0) @ v
