"""Statements on the line of their block's header (`if big: self.x = ...`) are rewritten in place."""

import torch
import torch.nn as nn


class Window(nn.Module):
    def __init__(self, big=True):
        super().__init__()
        if big: self.taps = torch.hann_window(8)
        else: self.taps = torch.ones(8)
        for _ in range(1): self.offset = torch.zeros(8)

    def forward(self, x):
        return x * self.taps + self.offset
