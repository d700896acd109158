"""nn.Parameter(t).to(device) is a parameter on CPU and a plain, untrained tensor on CUDA:
registering it would add a key that checkpoints saved on CUDA lack, so it is reported."""

import torch
import torch.nn as nn


class Bilinear(nn.Module):
    def __init__(self, dim=4, device="cpu"):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim, dim) * 0.1).to(device)
        self.bias = nn.Parameter(torch.zeros(dim)).to(torch.device(device))
        self.scale = torch.ones(dim)

    def forward(self, x, y):
        return ((x @ self.weight) * y).sum(-1) * self.scale.sum() + self.bias.sum()
