from typing import Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor

from tables import load_table

_cache = {}


def positions(n) -> "torch.Tensor":
    return _cache.setdefault(("positions", n), torch.arange(n).float())


def grids(n) -> Tuple[Tensor, Tensor]:
    return tuple(_cache.setdefault(("grid", n), torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")))


class Embedding(nn.Module):
    """Return annotations type what the analysis cannot read (values from a cache): `->
    torch.Tensor` of a repository helper (repo/tables.py), `-> "torch.Tensor"`,
    `-> Optional[Tensor]` of a method, `-> Tuple[Tensor, Tensor]` unpacked."""

    def __init__(self, n=4):
        super().__init__()
        self.register_buffer("table", load_table(n), persistent=False)
        self.register_buffer("pos", positions(n), persistent=False)
        self.register_buffer("scale", self.make_scale(n), persistent=False)
        gx, gy = grids(n)
        self.register_buffer("gx", gx, persistent=False)
        self.register_buffer("gy", gy, persistent=False)

    def make_scale(self, n) -> Optional[Tensor]:
        return _cache.setdefault(("scale", n), torch.full((n,), 0.5))

    def forward(self, x):
        return x * self.scale
