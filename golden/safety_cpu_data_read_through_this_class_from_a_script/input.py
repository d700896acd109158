"""A script builds this class (`from input import Pruner`), moves it to the GPU and hands
the mask it reads through the model to `.numpy()`: as a buffer the mask would follow the
model to the GPU and `.numpy()` would raise, so it stays a plain attribute (BUF218)."""

import torch
import torch.nn as nn


class Pruner(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.ones(n, n) - torch.eye(n)

    def forward(self, x):
        return x @ self.mask
