import torch
import torch.nn as nn


class Pruner(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.ones(n, n)

    def forward(self, x):
        return x @ self.mask
