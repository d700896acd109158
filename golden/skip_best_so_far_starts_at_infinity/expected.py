"""A best-so-far loss that starts at infinity (`float('inf')`, `math.inf`) and holds the
validation loss, a tensor, once an epoch ends. A buffer cannot hold the number it starts
as, and the value is bookkeeping, not state: reported, never rewritten."""

import math

import torch
import torch.nn as nn


class ArchitectureSearch(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.net = nn.Linear(width, 1)
        self.outputs = []
        self.best_loss = float('inf')
        self.worst_loss = -math.inf

    def forward(self, x):
        return self.net(x)

    def validation_step(self, x, y):
        loss = (self(x) - y).pow(2).mean()
        self.outputs.append(loss.detach())
        return loss

    def on_validation_epoch_end(self):
        average = torch.stack(self.outputs).mean()
        if average < self.best_loss:
            self.best_loss = average
        if average > self.worst_loss:
            self.worst_loss = average
        self.outputs.clear()
