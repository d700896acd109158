"""A table made by a static method, called through the class's name (as fairseq's
SinusoidalPositionalEmbedding does), and one called on self: both are tensors."""

import math

import torch
import torch.nn as nn


class SinusoidalPositions(nn.Module):
    def __init__(self, dim=8, init_size=16):
        super().__init__()
        self.dim = dim
        self.register_buffer(
            "weights",
            SinusoidalPositions.get_embedding(init_size, dim),
            persistent=False,
        )
        self.register_buffer("scale", self.get_scale(dim), persistent=False)

    @staticmethod
    def get_embedding(num_embeddings, dim):
        half = dim // 2
        step = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -step)
        angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)

    @staticmethod
    def get_scale(dim):
        return torch.full((dim,), dim ** -0.5)

    def forward(self, x):
        return x * self.scale + self.weights[: x.size(1)]


class notation:
    """A plain class named in lower case, with a static helper."""

    @staticmethod
    def ramp(n):
        return torch.linspace(0, 1, n)


class Ramp(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.register_buffer("ramp", notation.ramp(n), persistent=False)

    def forward(self, x):
        return x * self.ramp
