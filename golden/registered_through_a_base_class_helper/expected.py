"""The helper may live in a repository base class; an attribute only assigned in forward
that no helper registered is still reported."""

import torch
import torch.nn as nn


class Module(nn.Module):
    def register_state(self, name, default):
        self.register_buffer(name, default)


class Decoder(Module):
    def __init__(self):
        super().__init__()
        self.register_state("running_mask", torch.zeros((1, 1, 0)).byte())

    def forward(self, x):
        self.running_mask = torch.cat([self.running_mask, torch.ones((1, 1, 1)).byte()], -1)
        self.last = x.detach()
        return x * self.running_mask.sum()
