"""Values built with torch.nn.functional ops are tensors too."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LabelSmoother(nn.Module):
    def __init__(self, num_classes=5, smoothing=0.1):
        super().__init__()
        self.register_buffer(
            "targets",
            F.one_hot(torch.arange(num_classes), num_classes).float(),
            persistent=False,
        )
        self.register_buffer(
            "kernel", F.pad(torch.ones(3) / 3, (1, 1)), persistent=False
        )
        self.register_buffer(
            "unit",
            F.normalize(torch.ones(1, num_classes), p=1, dim=-1),
            persistent=False,
        )
        self.smoothing = smoothing

    def forward(self, labels):
        smoothed = self.targets[labels] * (1 - self.smoothing) + self.unit * self.smoothing
        return F.conv1d(smoothed.unsqueeze(1), self.kernel.view(1, 1, -1), padding=2).squeeze(1)
