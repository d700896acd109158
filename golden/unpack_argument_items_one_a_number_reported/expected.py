"""A constructor argument unpacked into attributes whose calls hand a tuple of a tensor and
a number (`Clamp((data.min(), 1.0))`): the first item is a tensor and the second is not,
and `register_buffer` refuses a number, so the statement is reported, naming the item that is no tensor,
never rewritten. A tuple of numbers everywhere (`Shift((0.0, 1.0))`) holds no tensor."""

import torch
import torch.nn as nn


class Clamp(nn.Module):
    def __init__(self, bounds):
        super().__init__()
        self.lo, self.hi = bounds

    def forward(self, x):
        return (x - self.lo) / (self.hi - self.lo)


class Shift(nn.Module):
    def __init__(self, bounds):
        super().__init__()
        self.lo, self.hi = bounds

    def forward(self, x):
        return (x - self.lo) / (self.hi - self.lo)


def build(rows):
    data = torch.as_tensor(rows, dtype=torch.float32)
    return Clamp((data.min(), 1.0)), Shift((0.0, 1.0))
