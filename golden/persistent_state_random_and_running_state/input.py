"""persistent = "state": random initialisations and values that training updates from
their previous value are persistent (checkpoints saved before lack their keys, and the
finding says so); values the constructor rebuilds stay out of checkpoints."""

import torch
import torch.nn as nn


class Whitening(nn.Module):
    def __init__(self, dim=4, momentum=0.1):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.projection = torch.randn(dim, dim)
        self.running_mean = torch.zeros(dim)
        self.eye = torch.eye(dim)
        self.momentum = momentum

    def forward(self, x):
        if self.training:
            self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0).detach())
        return self.proj(x - self.running_mean) @ (self.projection + self.eye)
