"""Causal self-attention in a file that imports `from torch import nn`."""

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, dim=16, max_len=32):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer(
            "causal_mask",
            torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)),
            persistent=False,
        )
        self.out_scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        t = x.size(1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = (q @ k.transpose(-2, -1)) / q.size(-1) ** 0.5
        att = att.masked_fill(~self.causal_mask[:t, :t], float("-inf"))
        return self.proj(att.softmax(-1) @ v) * self.out_scale
