"""A lazy attribute filled by a setup method: the empty slot is registered in __init__.
One that another method sets to a value the codemod cannot type is left as it is."""

import torch
import torch.nn as nn


class Sampler(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.register_buffer("schedule", None, persistent=False)
        self.labels = None

    def set_timesteps(self, steps):
        self.schedule = torch.linspace(1.0, 0.0, steps)

    def set_labels(self, labels):
        self.labels = labels

    def forward(self, x):
        return self.lin(x) * self.schedule[0]
