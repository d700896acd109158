"""A slot set to None in __init__ and filled in forward from a local (`self.output = x`), in a
class that builds its layers in place: nothing else in the class hints at a tensor, and the
slot is still reported.  A slot filled with a count stays silent: it is no tensor."""

import torch.nn as nn


class Stack(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(3)])
        self.output = None

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        self.output = x
        return self.output


class Counted(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Linear(width, width)
        self.calls = None

    def forward(self, x):
        seen = len(x)
        self.calls = seen
        return self.body(x)
