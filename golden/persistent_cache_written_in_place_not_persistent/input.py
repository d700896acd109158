"""A preallocated cache that forward fills with new data (a KV cache, a ring of recent
inputs, a refill with copy_) carries no state worth a checkpoint key: non-persistent."""

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, batch=2, seq=8, dim=4):
        super().__init__()
        self.wk = nn.Linear(dim, dim)
        self.cache_k = torch.zeros(batch, seq, dim)
        self.recent = torch.zeros(3, dim)
        self.last = torch.zeros(dim)

    def forward(self, x, start=0):
        keys = self.wk(x)
        self.cache_k[: x.shape[0], start : start + x.shape[1]] = keys.detach()
        self.recent[start % 3] = keys.detach().mean((0, 1))
        self.last.copy_(keys.detach().mean((0, 1)))
        return self.cache_k[: x.shape[0], : start + x.shape[1]].sum(1) + self.last
