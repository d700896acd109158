"""A tensor handed to a child module (or read by a helper) while the model is built must
be on its device then: the move is kept, and only the one nothing reads is dropped."""

import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, support, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.degree = support.sum(1)

    def forward(self, x):
        return self.lin(x) / self.degree[:, None]


class GraphNet(nn.Module):
    def __init__(self, n=4, device="cpu"):
        super().__init__()
        self.register_buffer("adj", torch.eye(n).to(device), persistent=False)
        self.conv = GraphConv(self.adj, n)
        self.register_buffer("mask", torch.ones(n), persistent=False)
        self.register_buffer(
            "scale", torch.full((n,), 2.0).to(device), persistent=False
        )
        self.register_buffer("norm", self._normaliser(), persistent=False)

    def _normaliser(self):
        return self.scale / self.scale.sum()

    def forward(self, x):
        return self.conv(self.adj @ x) * self.mask * self.norm
