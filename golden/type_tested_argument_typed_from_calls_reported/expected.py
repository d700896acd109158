import torch
import torch.nn as nn


class Normalize(nn.Module):
    """The repository passes a tensor (repo/main.py), but the class accepts sequences too and
    converts them itself: what others pass may not be a tensor, so it is not rewritten."""

    def __init__(self, mean):
        super().__init__()
        self.mean = mean
        if not torch.is_tensor(mean):
            self.mean = torch.as_tensor(mean)

    def forward(self, x):
        return x - self.mean
