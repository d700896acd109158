"""A tensor in one branch and None in the other: both branches register the buffer."""

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim=8, max_len=16, causal=True, use_bias=False):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        if causal:
            self.register_buffer(
                "mask",
                torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1),
                persistent=False,
            )
        else:
            self.register_buffer("mask", None, persistent=False)
        self.register_buffer("bias", None, persistent=False)
        if use_bias:
            self.register_buffer(
                "bias", torch.zeros(max_len, max_len), persistent=False
            )

    def forward(self, x):
        t = x.size(1)
        scores = self.proj(x) @ x.transpose(1, 2)
        if self.mask is not None:
            scores = scores.masked_fill(self.mask[:t, :t], float("-inf"))
        if self.bias is not None:
            scores = scores + self.bias[:t, :t]
        return scores.softmax(-1) @ x
