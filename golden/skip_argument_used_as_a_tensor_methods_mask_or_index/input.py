"""An argument kept on the module and handed to a tensor-only method where that method takes a
tensor (the mask of `masked_fill_`, the index of `index_select`) is a tensor: each is
reported, since no call of the class types it."""

import torch
import torch.nn as nn


class MaskedAttention(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.linear_in = nn.Linear(size, size)
        self.mask = None

    def apply_mask(self, mask):
        self.mask = mask

    def forward(self, query, keys):
        scores = torch.bmm(self.linear_in(query), keys.transpose(1, 2))
        if self.mask is not None:
            scores.masked_fill_(self.mask, -float("inf"))
        return torch.softmax(scores, dim=-1)


class Reorder(nn.Module):
    def __init__(self, size, order):
        super().__init__()
        self.order = order
        self.proj = nn.Linear(size, size)

    def forward(self, x):
        return self.proj(x.index_select(1, self.order))
