"""A base class that only its subclasses call: the arguments a subclass's constructor hands
on (`super().__init__(...)`, `super(Sub, self).__init__(...)`,
`super(self.__class__, self).__init__(...)`, `Base.__init__(self, ...)`, positional or by
keyword, or left to the base's default) are typed from the subclass's own calls
(repo/run.py), through any number of subclasses; a subclass without a constructor of its own
is called with the base's."""

import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, params=None):
        super().__init__()
        self.params = params


class GraphBase(Base):
    def __init__(self, edge_index, edge_type, num_rel, params=None, norm=torch.ones(2)):
        super(GraphBase, self).__init__(params)
        self.register_buffer("edge_index", edge_index, persistent=False)
        self.register_buffer("edge_type", edge_type, persistent=False)
        self.num_rel = num_rel
        self.register_buffer("norm", norm, persistent=False)

    def forward(self, x):
        return torch.index_select(x, 0, self.edge_type) * self.norm + self.edge_index.sum()


class Graph(GraphBase):
    def __init__(self, edge_index, edge_type, params=None):
        super().__init__(edge_index, edge_type, 3, params)


class NamedGraph(GraphBase):
    def __init__(self, edges, types):
        super(self.__class__, self).__init__(edge_type=types, edge_index=edges, num_rel=2)


class DeepGraph(Graph):
    def __init__(self, edge_index, edge_type):
        Graph.__init__(self, edge_index, edge_type)


class Mask(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        return torch.where(self.mask, torch.zeros_like(x), x)


class CausalMask(Mask):
    pass
