"""A numpy function given a tensor reads it through Tensor.numpy(), which takes only CPU
data: counters whose ratio goes to np.maximum stay plain attributes, on the CPU when the
model moves (BUF218).  A size read from a tensor (`np.arange(self.steps.shape[0])`) is a
number, and that tensor is rewritten."""

import numpy as np
import torch
import torch.nn as nn


class ErrorGate(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.err_count = torch.zeros(n)
        self.t_count = torch.tensor(0)
        self.register_buffer("steps", torch.arange(n), persistent=False)
        self.fc = nn.Linear(n, n)

    @property
    def err_rate(self):
        return np.maximum(self.err_count / self.t_count.clamp(min=1), 1e-32)

    def forward(self, x):
        order = np.arange(self.steps.shape[0])
        return self.fc(x)[:, order] + self.steps


class Thresholds(nn.Module):
    def __init__(self, levels=(0.25, 0.5, 0.75)):
        super().__init__()
        self.levels = torch.tensor(levels)
        self.fc = nn.Linear(3, 3)

    def quantiles(self, scores):
        return np.quantile(scores.detach().cpu().numpy(), self.levels)

    def forward(self, x):
        return self.fc(x)
