"""The copy is made in one configuration only: still reported, the other arm untouched."""

import torch
import torch.nn as nn


class ConvCell(nn.Module):
    def __init__(self, channels=3, peephole=True, device="cpu"):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        if peephole:
            self.w_ci = nn.Parameter(torch.zeros(1, channels, 8, 8)).to(device=device)
        else:
            self.w_ci = None

    def forward(self, x):
        h = self.conv(x)
        return h if self.w_ci is None else h * torch.sigmoid(self.w_ci)
