"""A trained tensor in a file with no name for torch.nn: `from torch import nn` is added."""

import torch as th
from torch.nn import Linear, Module


class Temperature(Module):
    def __init__(self, features=4):
        super().__init__()
        self.lin = Linear(features, features)
        self.log_temperature = th.zeros(1, requires_grad=True)

    def forward(self, x):
        return self.lin(x) / self.log_temperature.exp()
