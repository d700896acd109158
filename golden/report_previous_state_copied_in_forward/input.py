"""A temporal smoother remembers the previous frame's features: forward first copies the
current slot into the previous one, then refills the current one from its input. Both slots
start as None; the copied one holds a tensor from the second call on and is reported with
the slot it copies, not left silent."""

import torch
import torch.nn as nn


class TemporalSmoother(nn.Module):
    def __init__(self, dim, momentum=0.5):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.momentum = momentum
        self.previous = None
        self.current = None

    def forward(self, x):
        features = self.proj(x)
        self.previous = self.current
        self.current = features.detach()
        if self.previous is None:
            return features
        return self.momentum * self.previous + (1 - self.momentum) * features
