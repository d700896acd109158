"""Statistics handed in by keyword and taken out of **kwargs (`kwargs.get("mean")`): the
training script hands tensors, the inference script a value nothing types (a class picked
by name with eval).  A raw tensor in the first configuration at least: reported (BUF308),
with both calls, never rewritten."""

import torch
import torch.nn as nn


class PanSharpener(nn.Module):
    def __init__(self, channels, **kwargs):
        super().__init__()
        self.mean = kwargs.get("mean")
        self.std = kwargs.pop("std", None)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        x = (x - self.mean) / self.std
        return self.conv(x) * self.std + self.mean
