import torch
import torch.nn as nn


class Scaled(nn.Module):
    def forward(self, x, scale):
        return x * scale


class Head(nn.Module):
    """forward hands `temperature` to a child beside its input, but the trainer
    (repo/train.py) passes the number its constructor kept: nothing to rewrite."""

    def __init__(self, width, temperature):
        super().__init__()
        self.temperature = temperature
        self.fc = nn.Linear(width, width)
        self.scale = Scaled()

    def forward(self, x):
        h = self.fc(x)
        return self.scale(h, self.temperature)
