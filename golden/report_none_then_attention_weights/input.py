"""Attention weights kept for inspection: None in __init__, then what nn.MultiheadAttention
returns beside its output, a tensor unless `need_weights=False`.  A new tensor on every call
of forward: reported (BUF307), never rewritten; with `need_weights=False` the slot only ever
holds None, and nothing is said."""

import torch.nn as nn


class EncoderLayer(nn.Module):
    def __init__(self, d_model=8, nhead=2):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.attn_weights = None

    def forward(self, src):
        out, weights = self.self_attn(src, src, src, need_weights=True, average_attn_weights=False)
        self.attn_weights = weights
        return src + out


class FastLayer(nn.Module):
    def __init__(self, d_model=8, nhead=2):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.attn_weights = None

    def forward(self, src):
        out, self.attn_weights = self.self_attn(src, src, src, need_weights=False)
        return src + out
