import torch
import torch.nn as nn


class Field(nn.Module):
    """Attributes computed from a registered buffer (a tensor, or register_buffer would have
    raised) are tensors too: arithmetic, items and clone()."""

    def __init__(self, aabb):
        super().__init__()
        self.register_buffer("aabb", aabb)
        self.register_buffer("aabb_size", self.aabb[1] - self.aabb[0], persistent=False)
        self.register_buffer("inv_aabb_size", 1.0 / self.aabb_size, persistent=False)
        self.register_buffer("initial", self.aabb.clone(), persistent=False)

    def forward(self, xyz):
        return (xyz - self.aabb[0]) * self.inv_aabb_size


class Box(nn.Module):
    """An argument typed from the repository's calls, then arithmetic on the attribute."""

    def __init__(self, bounds):
        super().__init__()
        self.register_buffer("size", bounds[1] - bounds[0], persistent=False)
        self.register_buffer("inv", 1.0 / self.size, persistent=False)

    def forward(self, x):
        return x @ self.inv


def make():
    return Field(torch.tensor([[0.0, 0.0], [2.0, 4.0]])), Box(torch.tensor([[0.0, 0.0], [2.0, 2.0]]))
