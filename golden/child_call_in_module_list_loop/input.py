import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)

    def forward(self, x, adj):
        return self.lin(adj @ x)


class Stack(nn.Module):
    """The adjacency is only handed to the children, in a loop over an nn.ModuleList and by
    index; the calls of Stack pass a tensor."""

    def __init__(self, adj, n=3, depth=2):
        super().__init__()
        self.adj = adj
        self.supports = adj.t()
        self.layers = nn.ModuleList([GraphConv(n) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x, self.adj)
        return self.layers[0](x, self.supports)


def build():
    return Stack(torch.ones(3, 3) / 3)
