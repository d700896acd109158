"""A cache the model recomputes wholesale later (here with a new shape) would be stale or
the wrong size in a checkpoint: non-persistent buffers. `Blur` rebuilds its kernel only when
the input's channels change, which the reason says."""

import torch
import torch.nn as nn


class Rotary(nn.Module):
    def __init__(self, dim=4, max_len=8):
        super().__init__()
        self.dim = dim
        self.cos_cache = torch.cos(torch.arange(max_len)[:, None] * torch.ones(dim))
        self.positions = torch.arange(max_len)

    def _grow(self, length):
        self.positions = torch.arange(length, device=self.positions.device)
        self.cos_cache = torch.cos(self.positions[:, None] * torch.ones(self.dim, device=self.positions.device))

    def forward(self, x):
        if x.shape[1] > self.positions.shape[0]:
            self._grow(x.shape[1])
        return x * self.cos_cache[: x.shape[1]]


class Blur(nn.Module):
    def __init__(self, channels=1):
        super().__init__()
        self.channels = channels
        self.kernel = torch.ones(channels, 1, 3, 3) / 9

    def forward(self, x):
        if x.shape[1] != self.channels:
            self.channels = x.shape[1]
            self.kernel = torch.ones(self.channels, 1, 3, 3, dtype=x.dtype, device=x.device) / 9
        return nn.functional.conv2d(x, self.kernel, padding=1, groups=self.channels)
