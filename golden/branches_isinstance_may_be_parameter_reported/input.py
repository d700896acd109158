import torch
import torch.nn as nn


class Scaler(nn.Module):
    """`isinstance(scale, torch.Tensor)` holds for an nn.Parameter too: the branch may keep a
    Parameter handed in, which must stay a parameter, so the attribute is reported."""

    def __init__(self, size=3, scale=1.0):
        super().__init__()
        if isinstance(scale, torch.Tensor):
            self.scale = scale
        else:
            self.scale = torch.full((size,), float(scale))

    def forward(self, x):
        return x * self.scale
