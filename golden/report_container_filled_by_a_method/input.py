"""A dict built empty in __init__ and filled with tensors by another method is reported:
its tensors are not moved by .to() nor saved, and no single rewrite fits."""

import torch
import torch.nn as nn


class LossBase(nn.Module):
    def __init__(self):
        super().__init__()
        self._metrics = {}
        self._history = []

    def add_metric(self, key, val):
        self._metrics[key] = val.detach()

    def remember(self, loss):
        self._history.append(loss.detach().unsqueeze(0))

    def forward(self, pred, target):
        loss = (pred - target).abs().mean()
        self.add_metric("l1", loss)
        self.remember(loss)
        return loss
