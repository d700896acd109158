"""Attention weights kept on self from a helper that applies a layer its call site hands it
(`dropout=self.dropout`): the helper returns two tensors, so the kept weights are reported
as a per-call value."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def attention(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = F.softmax(scores, dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, d_model=8, dropout=0.1):
        super().__init__()
        self.linear = nn.Linear(d_model, d_model)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        x, self.attn = attention(self.linear(query), key, value, mask=mask, dropout=self.dropout)
        return x


class Untyped(nn.Module):
    """The same helper handed a callable nothing types: the weights stay unknown."""

    def __init__(self, d_model=8, transform=None):
        super().__init__()
        self.transform = transform
        self.attn = None

    def forward(self, query, key, value):
        x, self.attn = attention(query, key, value, dropout=self.transform)
        return x
