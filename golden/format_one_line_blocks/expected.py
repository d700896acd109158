"""Statements on the line of their block's header (`if big: self.x = ...`) are rewritten in place."""

import torch
import torch.nn as nn


class Window(nn.Module):
    def __init__(self, big=True):
        super().__init__()
        if big: self.register_buffer("taps", torch.hann_window(8), persistent=False)
        else: self.register_buffer("taps", torch.ones(8), persistent=False)
        for _ in range(1): self.register_buffer("offset", torch.zeros(8), persistent=False)

    def forward(self, x):
        return x * self.taps + self.offset
