"""Set to None in __init__ and replaced by forward on every call, from a value that does not
read it: a per-call value (attention weights kept for inspection), reported (BUF307), not
made a buffer.  A value forward builds only when missing (a cache) or from its previous
value (a recurrent state) is state the model keeps: an empty buffer slot (BUF107)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def attention(query, key, value):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, value), weights


class SelfAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn = None  # kept for visualisation

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        x, self.attn = attention(q, k, v)
        return x


class ConvAttention(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 1)
        self.weights = None

    def forward(self, x):
        with torch.no_grad():
            scores = self.conv(x)
        self.weights = torch.softmax(scores, dim=-1)
        return x * self.weights


class Recurrent(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cell = nn.GRUCell(dim, dim)
        self.register_buffer("state", None, persistent=False)

    def forward(self, x):
        if self.state is None:
            self.state = torch.zeros_like(x)
        self.state = self.cell(x, self.state)
        return self.state
