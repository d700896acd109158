"""`# codemod: ignore` on a line (or on a class header) leaves it alone, with no finding."""

import torch
import torch.nn as nn


class Pooler(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.weights = torch.ones(size) / size  # codemod: ignore
        self.register_buffer("positions", torch.arange(size), persistent=False)
        self.window = torch.hann_window(
            size,
            periodic=False,
        )  # codemod: ignore

    def forward(self, x):
        return (x * self.weights).sum(-1) + self.positions.float().mean()


class LegacyPooler(nn.Module):  # codemod: ignore
    def __init__(self, size=4):
        super().__init__()
        self.weights = torch.ones(size) / size

    def forward(self, x):
        return (x * self.weights).sum(-1)
