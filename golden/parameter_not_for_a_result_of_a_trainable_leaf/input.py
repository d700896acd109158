"""A tensor that requires grad, rebound to a result computed from it (`.repeat`): the
attribute ends up holding a non-leaf that nothing trains.  As an nn.Parameter its ten copies
would train apart and add a state_dict key, so it is no parameter: a buffer, kept out of
checkpoints as the attribute was."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class Discriminator(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.head = nn.Linear(dim, 2)
        self.spltoken = Variable(torch.randn(1, 1, dim).type(torch.FloatTensor), requires_grad=True)
        self.spltoken = self.spltoken.repeat(10, 1, 1)

    def forward(self, x):
        return self.head(x) + self.spltoken.mean()
