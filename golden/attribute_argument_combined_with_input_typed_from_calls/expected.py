import torch.nn as nn


class CouplingLayer(nn.Module):
    """`inputs * self.mask` alone does not say tensor or number: the repository's calls
    (repo/main.py) pass a tensor for mask and a number for scale."""

    def __init__(self, num_inputs, mask, scale=1.0):
        super().__init__()
        self.register_buffer("mask", mask, persistent=False)
        self.scale = scale
        self.net = nn.Linear(num_inputs, num_inputs)

    def forward(self, inputs):
        masked = inputs * self.mask
        return self.net(masked) * (1 - self.mask) * self.scale + masked
