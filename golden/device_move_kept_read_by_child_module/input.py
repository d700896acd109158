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
        self.adj = torch.eye(n).to(device)
        self.conv = GraphConv(self.adj, n)
        self.mask = torch.ones(n).to(device)
        self.scale = torch.full((n,), 2.0).to(device)
        self.norm = self._normaliser()

    def _normaliser(self):
        return self.scale / self.scale.sum()

    def forward(self, x):
        return self.conv(self.adj @ x) * self.mask * self.norm
