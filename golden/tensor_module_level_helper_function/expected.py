"""Tensors returned by module-level functions of the same file."""

import math

import torch
import torch.nn as nn


def causal_mask(size):
    mask = torch.triu(torch.ones(size, size), diagonal=1)
    return mask.bool()


def sinusoid_table(n_positions, dim):
    position = torch.arange(n_positions, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
    table = torch.zeros(n_positions, dim)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table


def random_rotation(dim):
    q, _ = torch.linalg.qr(torch.randn(dim, dim))
    return q


class Decoder(nn.Module):
    def __init__(self, dim=8, max_len=16):
        super().__init__()
        self.register_buffer("mask", causal_mask(max_len), persistent=False)
        self.register_buffer("table", sinusoid_table(max_len, dim), persistent=False)
        self.register_buffer("rotation", random_rotation(dim), persistent=False)

    def forward(self, x):
        t = x.size(1)
        scores = (x @ self.rotation) @ x.transpose(1, 2)
        scores = scores.masked_fill(self.mask[:t, :t], float("-inf"))
        return scores.softmax(-1) @ (x + self.table[:t])
