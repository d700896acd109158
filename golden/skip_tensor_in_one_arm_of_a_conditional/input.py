"""A tensor in one arm of a conditional, and a string or an untyped argument in the other:
reported, not rewritten (register_buffer refuses a string); a conditional between two
tensors is rewritten as before."""

import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim, std, scale=None):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        # "learned" picks a learned scale in forward; a number gives a fixed one
        self._std = std if isinstance(std, str) else torch.tensor((std,))
        self.scale = scale if torch.is_tensor(scale) else torch.ones(dim)
        self.offset = torch.zeros(dim) if scale is None else torch.full((dim,), 0.5)

    def forward(self, x):
        y = self.linear(x) * self.scale + self.offset
        if isinstance(self._std, str):
            return y
        return y * self._std.to(y)
