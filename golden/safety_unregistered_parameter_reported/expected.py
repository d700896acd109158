"""An operation on an nn.Parameter made on the spot (`nn.Parameter(...).squeeze(1)`) binds the
attribute to a plain tensor: the parameter itself is registered nowhere, so nothing trains,
saves or moves it. Each such attribute is reported with how to mend it. A parameter bound as
it is, or through a method that hands back the Parameter itself (`requires_grad_(False)`, a
cast to the dtype it has), is registered and left alone."""

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, hidden, att):
        super().__init__()
        self.w1 = nn.Parameter(nn.init.xavier_normal_(torch.empty(hidden, att)))
        self.b1 = torch.empty((att, 1))
        self.b1 = nn.Parameter(nn.init.xavier_normal_(self.b1)).squeeze(1)
        self.proj = nn.Parameter(torch.eye(att)).t()
        self.frozen = nn.Parameter(torch.ones(att)).requires_grad_(False)
        self.scale = nn.Parameter(torch.ones(att)).float()

    def forward(self, x):
        return torch.tanh(x @ self.w1 + self.b1) @ self.proj * self.frozen * self.scale
