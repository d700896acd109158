"""A raw tensor in one branch and nn.Parameter in the other: the raw branch becomes a
persistent buffer, so that `scale` is a state_dict key whichever branch ran (a checkpoint
of one configuration loads into the other).  Assigning an nn.Parameter to a name that is
already a buffer moves it to the parameters, so `shift` (raw first, trained later) works too."""

import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self, dim=4, learn_scale=False, learn_shift=False):
        super().__init__()
        if learn_scale:
            self.scale = nn.Parameter(torch.ones(dim))
        else:
            self.register_buffer("scale", torch.ones(dim), persistent=False)
        self.register_buffer("shift", torch.zeros(dim), persistent=False)
        if learn_shift:
            self.shift = nn.Parameter(self.shift)

    def forward(self, x):
        return x * self.scale + self.shift
