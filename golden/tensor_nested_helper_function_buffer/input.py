import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    """A function defined inside the constructor is typed from its body, with what the call
    passes: the table it returns is a tensor, registered as a buffer."""

    def __init__(self, dim=8, max_len=16):
        super().__init__()

        def sinusoids(length, width):
            position = torch.arange(length).unsqueeze(1)
            scale = torch.exp(torch.arange(0, width, 2) * (-math.log(10000.0) / width))
            table = torch.zeros(length, width)
            table[:, 0::2] = torch.sin(position * scale)
            table[:, 1::2] = torch.cos(position * scale)
            return table

        self.table = sinusoids(max_len, dim)

    def forward(self, x):
        return x + self.table[: x.size(1)]
