"""A module class defined inside the training function keeps the tensor that function builds
and hands it; only the function's own calls of the class can type the argument. A same-named
class at module level is another class, whose calls say nothing about this one."""

import torch
from torch import nn


class Operator(nn.Module):
    def __init__(self, K=None):
        super().__init__()
        self.K = K

    def forward(self, x):
        return x @ self.K


def train(size, device="cpu"):
    class Operator(nn.Module):
        def __init__(self, denoising=False, K=None):
            super().__init__()
            self.denoising = denoising
            self.K = K  # the measurement matrix

        def forward(self, x):
            if self.denoising:
                return x
            return x @ self.K

    K = torch.eye(size).to(device)
    return Operator(denoising=False, K=K)


def evaluate(weights):
    return Operator(K=weights)
