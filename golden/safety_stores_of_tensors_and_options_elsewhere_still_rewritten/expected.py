"""Stores through other objects that a buffer takes (a tensor, None, a parameter) or that
set an option of the same name (`args.scale = 0.5`) leave the rewrites as they are."""

import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.register_buffer("scale", torch.ones(n), persistent=False)
        self.register_buffer("mask", torch.zeros(n, dtype=torch.bool), persistent=False)

    def forward(self, x):
        return (x * self.scale).masked_fill(self.mask, 0.0)


def configure(model, args):
    args.scale = 0.5  # an option of the run, not the model
    model.scale = torch.full((3,), args.scale)
    model.scale = torch.ones(3) * args.scale  # arithmetic with a tensor: a tensor
    model.mask = None
    model.mask = torch.ones(3).bool()
    return model
