"""A trained tensor in a file with no name for torch.nn: `from torch import nn` is added."""

import torch as th
from torch.nn import Linear, Module
from torch import nn


class Temperature(Module):
    def __init__(self, features=4):
        super().__init__()
        self.lin = Linear(features, features)
        self.log_temperature = nn.Parameter(th.zeros(1))

    def forward(self, x):
        return self.lin(x) / self.log_temperature.exp()
