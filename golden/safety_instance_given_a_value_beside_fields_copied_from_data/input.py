"""A beamformer copies its acquisition's fields into tensors of the same names, and a script
builds one and then sets its speed of sound to a number through the instance: a plain name
that holds the class itself, not the data, so `c` is reported (a buffer refuses the number)."""

import torch
import torch.nn as nn


class DelayAndSum(nn.Module):
    def __init__(self, F, grid):
        super().__init__()
        self.c = torch.tensor(F.c, dtype=torch.float32)
        self.fs = torch.tensor(F.fs, dtype=torch.float32)
        self.grid = torch.tensor(grid, dtype=torch.float32)

    def forward(self, x):
        return x * self.fs / self.c + self.grid.sum()


def sweep(acquisition, grid, speeds):
    das = DelayAndSum(acquisition, grid)
    for speed in speeds:
        das.c = speed  # a number from the sweep, through the instance
    return das
