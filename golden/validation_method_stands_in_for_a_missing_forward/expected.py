"""A module with no forward of its own, used through its methods (a weighted loss kept as an
nn.Module, with `loss(pred, target)` and a `save(path)` that writes a file). The weights
become a buffer; validation runs `loss`, the public method that reads them, as the class's
forward on both sides (never `save`, which acts on the world rather than computes), and
compares it in float32 and after each cast."""

import torch
import torch.nn as nn


class WeightedError(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.register_buffer("weights", torch.linspace(0.5, 1.5, n), persistent=False)

    def loss(self, pred, target):
        return (((pred - target) ** 2) * self.weights).mean()

    def save(self, path):
        torch.save(self.weights, path)
        return path
