"""A float tensor that every reader moves to the input's device itself is left alone: the
code already places it, and as a buffer model.to(torch.bfloat16) would also round it (here
sinusoidal frequencies kept in float32 on purpose).  Integer tensors, which float casts
never touch, and tensors read some other way are still registered."""

import math

import torch
import torch.nn as nn


class TimeEmbedding(nn.Module):
    def __init__(self, dim=8, max_period=10000.0):
        super().__init__()
        self.freqs = torch.exp(-math.log(max_period) * torch.arange(dim // 2, dtype=torch.float32) / (dim // 2))
        self.register_buffer("positions", torch.arange(dim), persistent=False)
        self.register_buffer("scale", torch.ones(dim), persistent=False)
        self.proj = nn.Linear(dim, dim)

    def forward(self, t):
        args = torch.outer(t.to(torch.float32), self.freqs.to(t.device))
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        emb = emb + self.positions.to(t.device)
        return self.proj(emb.to(self.proj.weight.dtype)) * self.scale
