"""Transfer functions handed to a propagation layer from a loop over stacked tensors
(`for kernel, led in zip(KERNELS, LED_KERNELS)`, each a row of a tensor), and a mask from
`for i, mask in enumerate(masks)`: typed from the calls and rewritten.  A layer whose loop
zips a tensor with a list of numbers gets nothing from the numbers' side."""

import torch
import torch.nn as nn


class Propagation(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        self.register_buffer("kernel", kernel, persistent=False)

    def forward(self, x):
        return x * self.kernel


class Masked(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        return x.mul(self.mask)


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale
