"""A file with Windows (CRLF) line endings keeps them."""

import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.register_buffer("scale", torch.full((features,), 2.0), persistent=False)
        self.lin = nn.Linear(features, features)

    def forward(self, x):
        return self.lin(x) * self.scale


class Spaced(nn.Module):
    """A blank line inside the constructor, as in most files: the pre-filter reads on past it."""

    def __init__(self, features=4):
        super().__init__()

        self.lin = nn.Linear(features, features)

        self.register_buffer("offset", torch.zeros(features), persistent=False)

    def forward(self, x):
        return self.lin(x) + self.offset
