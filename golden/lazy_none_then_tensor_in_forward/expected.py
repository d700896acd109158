"""Set to None in __init__ and to a tensor by forward: registering the empty slot
(register_buffer(name, None, persistent=False)) makes the later tensor a buffer, which
.to() moves and .half() casts, while state_dict() stays as it was."""

import torch
import torch.nn as nn


class RotaryCache(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("cos_cached", None, persistent=False)
        self.seq_len_cached = 0

    def forward(self, x):
        seq_len = x.shape[1]
        if self.cos_cached is None or seq_len > self.seq_len_cached:
            t = torch.arange(seq_len, dtype=torch.float32)
            self.cos_cached = torch.cos(t)[:, None].expand(seq_len, self.dim)
            self.seq_len_cached = seq_len
        return self.proj(x) * self.cos_cached[:seq_len]
