import torch.nn as nn


class Scaled(nn.Module):
    """`x * self.gain` where every call passes a number, and `x + self.shift` where no call
    says: neither is a tensor the analysis can prove, and neither use is evidence to report."""

    def __init__(self, dim, gain, shift):
        super().__init__()
        self.gain = gain
        self.shift = shift
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x * self.gain) + self.shift
