"""Helpers of the repository, imported by the model file."""

import torch


def causal_mask(size):
    return torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)


def random_projection(n, d):
    return torch.randn(n, d) / d ** 0.5
