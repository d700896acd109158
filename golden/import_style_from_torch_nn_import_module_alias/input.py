"""Base class imported under another name: `from torch.nn import Module as M`."""

import torch
from torch.nn import Linear, Module as M


class Normalizer(M):
    def __init__(self, features=4):
        super().__init__()
        self.lin = Linear(features, features)
        self.shift = torch.zeros(features)
        self.spread = torch.ones(features)

    def forward(self, x):
        return self.lin((x - self.shift) / self.spread)
