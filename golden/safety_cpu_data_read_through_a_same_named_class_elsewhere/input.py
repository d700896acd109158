"""A script reads `.mask` through a model and hands it to `.numpy()` (BUF218 would keep such
a mask a plain attribute), but the model it builds is the same-named class of another file
(`from model import Pruner`, an older copy beside this one): what it reads is not this
class's tensor, and this mask becomes a buffer."""

import torch
import torch.nn as nn


class Pruner(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.ones(n, n) - torch.eye(n)

    def forward(self, x):
        return x @ self.mask
