"""A file with Windows line ends: a kept argument that forward combines with its input, typed
from the call in the training script, is found as in any other file, and the line ends stay."""

import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, adj, dim):
        super().__init__()
        self.register_buffer("adj", adj, persistent=False)
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        return self.adj * self.linear(x)
