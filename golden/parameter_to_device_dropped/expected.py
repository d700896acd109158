"""nn.Parameter(t).to(device) is a copy of the parameter; the module moves parameters itself."""

import torch
import torch.nn as nn


class Bilinear(nn.Module):
    def __init__(self, dim=4, device="cpu"):
        super().__init__()
        self.weight = nn.Parameter((torch.randn(dim, dim) * 0.1).to(device))
        self.bias = nn.Parameter(torch.zeros(dim).to(device=device))

    def forward(self, x, y):
        return ((x @ self.weight) * y).sum(-1) + self.bias.sum()
