"""An argument of a method other than __init__, kept as an attribute and used as only a
tensor is used elsewhere in the class, is reported (BUF309): a per-call tensor kept on the
module.  An argument the class only multiplies by (a number as well) is not."""

import torch
import torch.nn as nn


class Reasoner(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.local_entity = None

    def init_reason(self, local_entity, scale):
        self.local_entity = local_entity
        self.scale = scale

    def forward(self, x):
        batch_size = self.local_entity.size(0)
        return self.linear(x)[:batch_size] * self.scale


class GraphLayer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.linear = nn.Linear(dim, dim)

    def set_graph(self, adj):
        self.adj = adj

    def forward(self, x):
        return torch.mm(self.adj, self.linear(x))


def run():
    reasoner = Reasoner()
    reasoner.init_reason(torch.arange(4), 2.0)
    layer = GraphLayer()
    layer.set_graph(torch.eye(4))
    return reasoner(torch.ones(4, 8)), layer(torch.ones(4, 8))
