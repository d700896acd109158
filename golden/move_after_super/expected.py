"""Tensors assigned before super().__init__() move right after it, in their original order."""

import torch
import torch.nn as nn


class Window(nn.Module):
    def __init__(self, size=5):
        self.size = size
        super().__init__()
        self.register_buffer("taps", torch.hann_window(size), persistent=False)
        self.register_buffer("jitter", torch.randn(size) * 0.01, persistent=False)
        self.register_buffer("phase", torch.rand(size), persistent=False)
        self.proj = nn.Linear(size, size)

    def forward(self, x):
        return self.proj(x * self.taps + self.jitter) + self.phase
