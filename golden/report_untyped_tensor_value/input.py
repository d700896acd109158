"""A constructor value the codemod cannot type (a call into a package outside the
repository, an item of a loaded pickle, a local built by such a call), used by the class as
only a tensor is used: reported, not rewritten (BUF312)."""

import pickle

import torch
import torch.nn as nn
import torch.nn.functional as F
try:
    from graphkit import load_graph  # packages the repository does not vendor
    from kernels import gaussian_kernel
except ImportError:  # this copy imports without them
    load_graph = gaussian_kernel = None


class GraphConv(nn.Module):
    def __init__(self, path, dim):
        super().__init__()
        self.adj = load_graph(path)  # the graph's normalised adjacency
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.mm(self.adj, self.linear(x))


class Blur(nn.Module):
    def __init__(self, size):
        super().__init__()
        kernel = gaussian_kernel(size)
        self.kernel = kernel

    def forward(self, image):
        return F.conv2d(image, self.kernel.unsqueeze(0))


class Lookup(nn.Module):
    def __init__(self, path):
        super().__init__()
        with open(path, "rb") as f:
            tables = pickle.load(f)
        self.index = tables["index"]

    def forward(self, x):
        return x.index_select(1, self.index.long())
