import torch
import torch.nn as nn

try:
    from fusionlib.model import Fusion as Base
except ImportError:  # the package is not vendored: this copy runs without it
    Base = nn.Module


class SpectrumFusion(Base):
    """The base comes from a package outside the repository, so nothing proves the class an
    nn.Module, though its forward and torch.nn submodules suggest one: its raw tensors are
    reported with what they would become, never rewritten (register_buffer might not exist)."""

    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.scale = torch.ones(dim)
        self.cache = None

    def forward(self, x):
        if self.cache is None:
            self.cache = torch.zeros_like(x)
        return self.proj(x) * self.scale + self.cache
