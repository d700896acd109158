"""A helper fills two lists bound together (`shift, scale = [], []`) and returns both; the
constructor keeps the lists beside the parameters it makes from their tensors."""

import torch
import torch.nn as nn


class MixingNet(nn.Module):
    def __init__(self, widths=(2, 3)):
        super().__init__()
        self.widths = widths
        self.shift_raw_, self.scale_raw_ = self.init_w()
        self.shift = nn.ParameterList([nn.Parameter(x) for x in self.shift_raw_])
        self.scale = nn.ParameterList([nn.Parameter(x) for x in self.scale_raw_])

    def init_w(self):
        shift_tensors, scale_tensors = [], []
        for width in self.widths:
            w = torch.zeros(width)
            torch.nn.init.uniform_(w, -1.0, 1.0)
            shift_tensors.append(w)
        for width in self.widths:
            scale_tensors.append(torch.ones(width))
        return shift_tensors, scale_tensors

    def forward(self, t):
        return sum((t * s + b).sum() for s, b in zip(self.scale, self.shift))
