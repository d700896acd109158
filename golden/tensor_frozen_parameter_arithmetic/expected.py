"""Arithmetic on a frozen parameter written in place gives a plain tensor that nothing
registers: a raw tensor attribute (a pixel grid centred on the image).  The same arithmetic
on a trainable parameter carries its gradient, and is left alone."""

import torch
import torch.nn as nn


class CentredGrid(nn.Module):
    def __init__(self, width=16, height=16):
        super().__init__()
        xs = torch.arange(width).repeat(height, 1).float()
        ys = torch.arange(height).unsqueeze(1).repeat(1, width).float()
        self.register_buffer(
            "xx", nn.Parameter(xs, requires_grad=False) - width / 2.0, persistent=False
        )
        self.register_buffer(
            "yy", height / 2.0 - nn.Parameter(ys, requires_grad=False), persistent=False
        )
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, image):
        return self.conv(image) * self.xx + self.yy


class ScaledWeight(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.scaled = nn.Parameter(torch.ones(dim)) * 0.5  # keeps the gradient of a parameter nobody registers

    def forward(self, x):
        return x * self.scaled
