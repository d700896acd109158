"""A constructor argument kept as an attribute is a raw tensor when the class uses it as one
and every call of the class in the repository passes a tensor: a literal one, a parent's
tensor attribute, or a tensor default.  Lists of tensors handed in are reported."""

import numpy as np
import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, adj, support, dim=3, device="cpu"):
        super().__init__()
        self.register_buffer("adj", adj, persistent=False)
        self.register_buffer("support", support, persistent=False)
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.adj @ self.lin(x) + torch.mm(self.support, x)


class Smooth(nn.Module):
    def __init__(self, kernel=torch.ones(3) / 3):
        super().__init__()
        self.register_buffer("kernel", kernel, persistent=False)

    def forward(self, x):
        return x * self.kernel


class ChebConv(nn.Module):
    def __init__(self, polynomials):
        super().__init__()
        self.polynomials = polynomials

    def forward(self, x):
        return sum(p @ x for p in self.polynomials)


class FromNumpy(nn.Module):
    # One call passes a numpy array: register_buffer would raise TypeError there.
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, x):
        return x @ self.table


class Net(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.register_buffer("adj", torch.eye(n), persistent=False)
        self.blocks = nn.ModuleList([GraphConv(self.adj, torch.ones(n, n), n) for _ in range(2)])
        self.cheb = ChebConv([torch.eye(n), torch.ones(n, n)])
        self.smooth = Smooth()
        self.table = FromNumpy(torch.eye(n))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.smooth(self.cheb(x)) + self.table(x)


def numpy_table(n=3):
    return FromNumpy(np.eye(n))
