"""Classes that inherit nn.Module through other classes of the same repository."""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.lin(x)


class MixedBlock(Block):
    def __init__(self, dim=8):
        super().__init__(dim)
        self.mixing = torch.eye(dim) * 2.0

    def forward(self, x):
        return super().forward(x) @ self.mixing


class ShiftedMixedBlock(MixedBlock):
    def __init__(self, dim=8):
        super().__init__(dim)
        self.shift = torch.arange(dim).float() / dim

    def forward(self, x):
        return super().forward(x) + self.shift
