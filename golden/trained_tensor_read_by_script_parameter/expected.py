import torch
import torch.nn as nn


class Calibrated(nn.Module):
    """`log_temperature` requires grad and the script reads it (repo/train.py): made a Parameter,
    as before; nothing in the class itself reads it."""

    def __init__(self, width=4):
        super().__init__()
        self.fc = nn.Linear(width, 2)
        self.log_temperature = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return self.fc(x)
