"""A kept argument used as a tensor only where `isinstance(self.token, nn.Parameter)` holds:
a parameter is registered when assigned, and otherwise the call hands a list of embedding
layers, so nothing here is a raw tensor."""

import torch
import torch.nn as nn


class TokenPose(nn.Module):
    def __init__(self, dim=8, token_embedding=None):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.token = token_embedding

    def forward(self, x, extra=()):
        if isinstance(self.token, nn.Parameter):
            tokens = self.token.expand(x.shape[0], -1, -1)
        else:
            tokens = [layer(e) for layer, e in zip(self.token, extra)]
        return self.proj(x), tokens


def make_embedding(dim, learnable):
    if learnable:
        return nn.Parameter(torch.zeros(1, 4, dim))
    return nn.ModuleList([nn.Linear(2, dim), nn.Linear(2, dim)])


def build(dim=8, learnable=False):
    return TokenPose(dim, token_embedding=make_embedding(dim, learnable))
