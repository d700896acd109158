"""Tensors put in a plain list or dict after it is bound, and lists or dicts of tensors
handed to the constructor: reported with a suggestion, never rewritten (`.to()` and
`state_dict()` see neither).  nn.ParameterList.append registers what it is given."""

from typing import Dict, List

import torch
import torch.nn as nn
from torch import Tensor


class Pyramid(nn.Module):
    def __init__(self, levels=3):
        super().__init__()
        self.kernels = []
        for level in range(levels):
            self.kernels.append(torch.ones(2**level) / 2**level)
        self.tables = {}
        self.tables["sin"] = torch.sin(torch.arange(4.0))
        self.scales = nn.ParameterList()
        self.scales.append(torch.ones(1))

    def forward(self, x):
        return x * self.kernels[0].sum() * self.tables["sin"].sum() * self.scales[0]


class ChebConv(nn.Module):
    def __init__(self, polynomials: List[Tensor], named: Dict[str, torch.Tensor]):
        super().__init__()
        self.polynomials = polynomials
        self.named = named

    def forward(self, x):
        return sum(p @ x for p in self.polynomials)
