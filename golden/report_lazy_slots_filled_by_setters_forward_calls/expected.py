"""Slots set to None in __init__ and filled by setter methods that forward calls (attention
kept for an explanation): a setter every call of which hands it a tensor is reported; one
handed a number somewhere is not a tensor slot, and nothing is said of it."""

import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.softmax = nn.Softmax(dim=-1)
        self.attn = None
        self.v = None
        self.temperature = None

    def save_attn(self, attn):
        self.attn = attn

    def save_v(self, v):
        self.v = v

    def save_temperature(self, temperature):
        self.temperature = temperature

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.save_v(v)
        self.save_temperature(2.0)
        attn = self.softmax(q @ k.transpose(-1, -2) / self.temperature)
        self.save_attn(attn)
        return attn @ v
