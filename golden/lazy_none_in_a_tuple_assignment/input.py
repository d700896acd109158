"""`self.a, self.b = None, None` in __init__, tensors in forward: each is an empty buffer
slot, as if assigned alone (the tuple assignment is split)."""

import torch
import torch.nn as nn


class LoopCache(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.n = n
        self.loop_index, self.loop_type = None, None

    def forward(self, x):
        if self.loop_index is None:
            self.loop_index = torch.stack([torch.arange(self.n), torch.arange(self.n)])
            self.loop_type = torch.full((self.n,), 2, dtype=torch.long)
        return x[..., self.loop_type] + self.loop_index.sum()
