import torch
import torch.nn as nn


class Reservoir(nn.Module):
    """`type(x) != torch.Tensor` proves the else branch's value a tensor, and not an
    nn.Parameter (whose type is Parameter): both branches bind a tensor, so both are
    registered."""

    def __init__(self, input_size=3, scale=1.0):
        super().__init__()
        if type(scale) != torch.Tensor:
            self.register_buffer("scale", torch.ones(input_size + 1), persistent=False)
            self.scale *= scale
        else:
            self.register_buffer("scale", scale, persistent=False)
        self.readout = nn.Linear(input_size, 2)

    def forward(self, x):
        return self.readout(x * self.scale[1:])
