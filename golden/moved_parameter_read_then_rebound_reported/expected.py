"""A learnable encoding built as `nn.Parameter(...).to(device)`, initialised in place and then
bound again: what to say first is the moved Parameter (BUF216: a parameter on the CPU, a plain
tensor nothing trains on a GPU), not that it is read before the rebinding (BUF214)."""

import torch
import torch.nn as nn


class LearnedPositions(nn.Module):
    def __init__(self, positions=16, features=8, device=None):
        super().__init__()
        self.fix_encoding = nn.Parameter(torch.zeros(positions, 1)).to(device)
        nn.init.xavier_uniform_(self.fix_encoding)
        self.fix_encoding = self.fix_encoding.requires_grad_()
        self.features = features

    def forward(self, x):
        return x + self.fix_encoding.expand(-1, self.features)
