"""A statement before super().__init__() binds two attributes, and one of them is bound again
before the call: moving the statement after it would make the later value the earlier one.
Left as it is, with the reason."""

import torch
from torch import nn


class M(nn.Module):
    def __init__(self, n=3):
        self.mask, self.b = torch.ones(n), torch.ones(n)
        self.mask = 1.0
        super().__init__()

    def forward(self, x):
        return x * self.mask + self.b
