import torch.nn as nn


class Gate(nn.Module):
    """`inputs * self.mask` in a method forward hands its input to: the repository's calls
    (repo/main.py) pass a tensor for mask and a number for scale."""

    def __init__(self, n, mask, scale=1.0):
        super().__init__()
        self.register_buffer("mask", mask, persistent=False)
        self.scale = scale
        self.net = nn.Linear(n, n)

    def _masked(self, inputs):
        return inputs * self.mask * self.scale

    def forward(self, x):
        return self.net(self._masked(x))
