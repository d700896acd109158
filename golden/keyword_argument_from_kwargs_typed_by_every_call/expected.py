"""A table taken out of **kwargs (`kwargs["adj"]`, `kwargs.get("scale", ...)`), which every
call of the repository hands as a tensor: typed from the calls like a named argument and
rewritten (held back unless validated: a float buffer follows a cast).  A keyword the class
never keeps (`kwargs.get("name")`) and one that a call hands a number stay as they are."""

import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, dim, **kwargs):
        super().__init__()
        self.register_buffer("adj", kwargs["adj"], persistent=False)
        self.offset = kwargs.get("offset", 0.0)
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.mm(self.adj, self.linear(x)) + self.offset
