import torch
from torch import nn


class Normalizer(nn.Module):
    """Lambdas over numbers, over buffers read through self, and over their own arguments."""

    def __init__(self, mean, std):
        super().__init__()
        scale = 1.0 / std
        self.register_buffer("mean", torch.tensor(mean), persistent=False)
        self.by_number = lambda x: (x - mean) * scale
        self.by_buffer = lambda x: x - self.mean
        self.by_argument = lambda x, t: x - t
        self.activation = lambda x: torch.relu(x)

    def forward(self, x):
        return self.activation(self.by_buffer(self.by_number(x)))
