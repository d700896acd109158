"""persistent = "state": random initialisations and values that training updates from
their previous value are persistent (checkpoints saved before lack their keys, and the
finding says so); values the constructor rebuilds stay out of checkpoints."""

import torch
import torch.nn as nn


class Whitening(nn.Module):
    def __init__(self, dim=4, momentum=0.1):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("projection", torch.randn(dim, dim))
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("eye", torch.eye(dim), persistent=False)
        self.momentum = momentum

    def forward(self, x):
        if self.training:
            self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0).detach())
        return self.proj(x - self.running_mean) @ (self.projection + self.eye)
