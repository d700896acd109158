"""A module whose nn.Module base comes from another file of the repository."""

import torch

from layers import Layer


class GatedLayer(Layer):
    def __init__(self, dim=4):
        super().__init__(dim)
        self.register_buffer(
            "gate", torch.sigmoid(torch.linspace(-2.0, 2.0, dim)), persistent=False
        )

    def forward(self, x):
        return super().forward(x) * self.gate
