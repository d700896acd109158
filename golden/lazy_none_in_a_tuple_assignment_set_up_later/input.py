"""Empty slots in one tuple assignment, filled by a setup method: both registered empty;
the attribute that stays a plain number is left as it is."""

import torch
import torch.nn as nn


class Grid(nn.Module):
    def __init__(self):
        super().__init__()
        self.size, self.xx, self.yy = 0, None, None

    def setup(self, width, height):
        self.size = width * height
        self.yy, self.xx = torch.meshgrid(torch.arange(height).float(), torch.arange(width).float(), indexing="ij")

    def forward(self, x):
        if self.size != x.shape[-1] * x.shape[-2]:
            self.setup(x.shape[-1], x.shape[-2])
        return x + self.xx + self.yy
