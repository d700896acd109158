"""Constructor arguments that one call of the class hands a tensor and another a value that
is no tensor.  With the tensor, the attribute is a raw tensor (neither moved by .to() nor
saved); with the name or the number, register_buffer would refuse it.  So nothing is
rewritten, and both are reported with the two calls: the rotation's angle is annotated as a
name, a number or a tensor; the loss's weight is used as a tensor would be, with no
annotation."""

from typing import Union

import torch
import torch.nn as nn


class Rotation(nn.Module):
    def __init__(self, angle: Union[str, float, torch.Tensor] = "theta"):
        super().__init__()
        self.angle = angle

    def forward(self, x, values=None):
        angle = values[self.angle] if isinstance(self.angle, str) else self.angle
        return x * torch.cos(torch.as_tensor(angle))


class WeightedLoss(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, input, target):
        return (self.weight * (input - target) ** 2).mean()
