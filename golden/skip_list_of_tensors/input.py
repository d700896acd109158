"""Lists, tuples and dicts of tensors are reported with a suggestion, never rewritten."""

import torch
import torch.nn as nn


class MultiScale(nn.Module):
    def __init__(self, scales=(1, 2, 4)):
        super().__init__()
        self.kernels = [torch.ones(s) / s for s in scales]
        self.bounds = (torch.zeros(1), torch.ones(1))
        self.tables = {"sin": torch.sin(torch.arange(4.0)), "cos": torch.cos(torch.arange(4.0))}

    def forward(self, x):
        return x.clamp(self.bounds[0].item(), self.bounds[1].item()) * self.tables["cos"].sum()
