"""A parameter annotated `torch.Tensor` that the constructor hands to torch layers as a size
(`nn.GroupNorm(32, in_ch)`, `nn.Conv2d(in_ch, out_ch, 3)`) is a number, whatever the
annotation says: keeping it (`self.in_ch = in_ch`) is no tensor to report. A loss's class
weights annotated the same way and handed to `nn.NLLLoss(weight)` stay a tensor that may be an
nn.Parameter passed in, and are reported as before."""

import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, in_ch: torch.Tensor, out_ch: torch.Tensor):
        super().__init__()
        self.in_ch = in_ch
        self.out_ch = out_ch
        self.norm = nn.GroupNorm(32, in_ch)
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1)

    def forward(self, x):
        return self.conv(torch.relu(self.norm(x)))


class WeightedLoss(nn.Module):
    def __init__(self, weight: torch.Tensor):
        super().__init__()
        self.weight = weight
        self.loss = nn.NLLLoss(weight)

    def forward(self, logits, target):
        return self.loss(logits.log_softmax(-1), target) * self.weight.sum()


def build():
    return ResBlock(32, 64)
