import torch
import torch.nn as nn


class Smooth(nn.Module):
    """`factor` is handed to a torch function where a tensor may go, but its default, a
    number, says what the class expects: no report."""

    def __init__(self, width, factor=0.5):
        super().__init__()
        self.factor = factor
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return torch.lerp(x, self.fc(x), self.factor)
