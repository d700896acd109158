import numpy as np
import torch.nn as nn


def split_heads(qkv, head_num):
    batch, n = qkv.shape[0], qkv.shape[1]
    return qkv.reshape(batch, n, head_num, -1).transpose(0, 2, 1, 3)


class Planner(nn.Module):
    """The helper is handed a numpy array: what it returns is one too."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.layout = None

    def prepare(self, count):
        self.layout = split_heads(np.zeros((1, count, 4)), head_num=2)

    def forward(self, x):
        return self.proj(x) * float(self.layout.sum())
