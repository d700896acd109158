import torch
from torch import nn


class RunningScale(nn.Module):
    """Keeps a scale between calls, but starts it as a plain number."""

    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.scale = 1.0  # updated by calibrate()
        self.steps = 0  # stays a number: never a tensor

    def calibrate(self, x):
        self.scale = x.abs().amax().detach()
        self.steps = self.steps + 1

    def forward(self, x):
        return x / self.scale
