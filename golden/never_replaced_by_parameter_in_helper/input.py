"""A raw tensor that a helper __init__ always runs turns into an nn.Parameter (`self.weight =
nn.Parameter(self.weight)` at the helper's top level): a step of the construction, which
ends as a parameter, so there is nothing to rewrite."""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class SkeletonConv(nn.Module):
    def __init__(self, cin=4, cout=4, k=3):
        super().__init__()
        self.weight = torch.zeros(cout, cin, k)
        self.mask = torch.zeros_like(self.weight)
        self.mask = nn.Parameter(self.mask, requires_grad=False)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        self.weight = nn.Parameter(self.weight)

    def forward(self, x):
        return F.conv1d(x, self.weight * self.mask)
