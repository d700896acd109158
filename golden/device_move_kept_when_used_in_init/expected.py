"""A construction-time device move is kept when __init__ (or a helper it calls) goes on
using the tensor: a child module keeping its own reference, or code mixing it with tensors
already on that device, would otherwise see it on the CPU after model.to()."""

import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, adj):
        super().__init__()
        self.register_buffer(
            "adj", adj, persistent=False
        )  # its own reference to the parent's tensor
        self.lin = nn.Linear(adj.shape[0], adj.shape[0])

    def forward(self, x):
        return self.adj @ self.lin(x)


class GCN(nn.Module):
    def __init__(self, nodes=3, device="cpu"):
        super().__init__()
        self.register_buffer("adj", torch.eye(nodes).to(device), persistent=False)
        self.conv = GraphConv(self.adj)
        self.register_buffer("norm", torch.ones(nodes).to(device), persistent=False)
        self._build(device)
        self.register_buffer("mask", torch.ones(nodes), persistent=False)

    def _build(self, device):
        self.register_buffer(
            "degree", self.norm.sum() + torch.zeros(1, device=device), persistent=False
        )

    def forward(self, x):
        return self.conv(x) * self.norm[:, None] * self.mask[:, None] + self.adj.sum() + self.degree
