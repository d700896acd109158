"""An empty list or tuple set in __init__, and one tensor bound in its place by forward:
reported, as a number placeholder is (a buffer cannot hold the empty container). A list the
class fills with tensors is a container, which this rule leaves alone."""

import torch
import torch.nn as nn


class SingleLabelLoss(nn.Module):
    def __init__(self, eps=0.1):
        super().__init__()
        self.eps = eps
        self.targets_classes = []

    def forward(self, inputs, target):
        self.targets_classes = torch.zeros_like(inputs).scatter_(1, target.long().unsqueeze(1), 1)
        if self.eps > 0:
            self.targets_classes = self.targets_classes.mul(1 - self.eps).add(self.eps / inputs.size(-1))
        return -(self.targets_classes * inputs.log_softmax(-1)).sum(-1).mean()


class KeptAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.attention = ()

    def forward(self, x):
        self.attention = torch.softmax(self.proj(x), dim=-1)
        return x * self.attention


class FeatureTaps(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.taps = []

    def forward(self, x):
        y = self.proj(x)
        self.taps.append(y)
        return y
