from typing import Optional, Union

import torch
import torch.nn as nn
from torch import Tensor


class Layer(nn.Module):
    """Parameter annotations say a tensor comes: Optional[Tensor], Tensor | None and the legacy
    torch.FloatTensor. An nn.Parameter passes them too, so the repository's calls (build_layer
    below) say which: plain tensors, so these are rewritten. Union[nn.Parameter, Tensor] may be
    a Parameter passed in whatever the calls pass, which must stay a parameter, so it is
    reported rather than rewritten."""

    def __init__(
        self,
        adj: torch.FloatTensor,
        mask: Optional[Tensor] = None,
        bias: Tensor | None = None,
        weight: Union[nn.Parameter, Tensor] = None,
    ):
        super().__init__()
        self.register_buffer("adj", adj, persistent=False)
        self.register_buffer("mask", mask, persistent=False)
        self.register_buffer("bias", bias, persistent=False)
        self.weight = weight

    def forward(self, x):
        return self.adj @ x


def build_layer(n):
    return Layer(torch.eye(n), mask=torch.ones(n, dtype=torch.bool), bias=torch.zeros(n))


class Unseen(nn.Module):
    """Annotated `Tensor`, but nothing in the repository builds it: a caller elsewhere may hand
    in an nn.Parameter, which `self.scale = scale` keeps a parameter and register_buffer would
    take from the optimizer, so it is reported."""

    def __init__(self, scale: Tensor):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale
