"""A tensor switched to requires_grad later in the constructor is meant to be trained."""

import torch
import torch.nn as nn


class LearnedMix(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.alpha = torch.full((1,), 0.5)
        self.alpha.requires_grad = True
        self.proj = nn.Linear(features, features)

    def forward(self, x):
        return self.alpha * x + (1 - self.alpha) * self.proj(x)
