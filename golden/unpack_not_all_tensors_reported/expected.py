import torch
import torch.nn as nn


def table_and_size(n):
    return torch.ones(n, n), n


class Reported(nn.Module):
    """Unpackings the rewrite does not split: each tensor is reported (BUF304) with the reason."""

    def __init__(self, n=3):
        super().__init__()
        self.table, self.size = table_and_size(n)
        self.head, *self.rest = torch.ones(4).unbind(0)
        self.x = self.y = torch.zeros(2)
        (self.p, self.q), self.r = (torch.ones(1), torch.ones(2)), torch.ones(3)
        self.w, self.trained = torch.ones(2), torch.ones(2, requires_grad=True)

    def forward(self, x):
        return x
