"""A tensor default says a tensor is expected, not which: a caller may hand in an
nn.Parameter (repo/example.py does, for Flow), and register_buffer would take it from the
optimizer.  Without a call in the repository that says it is a plain tensor (Step has
none), the attribute is reported, not rewritten.  An annotation that admits a Parameter
(Scale) is reported whatever the calls pass (repo/example.py passes a plain tensor)."""

from typing import Union

import torch
import torch.nn as nn


class Flow(nn.Module):
    def __init__(self, tau_par=torch.zeros(1)):
        super().__init__()
        self.tau_par = tau_par

    def forward(self, x):
        return x * nn.functional.softplus(self.tau_par)


class Step(nn.Module):
    def __init__(self, size=torch.ones(1)):
        super().__init__()
        self.size = size

    def forward(self, x):
        return x * self.size


class Scale(nn.Module):
    def __init__(self, scale: Union[nn.Parameter, torch.Tensor]):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale
