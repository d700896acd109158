"""A beamformer copies its acquisition's fields into tensors of the same names; elsewhere a
script sets those fields on the acquisition objects (`P.c = 1540`), not on the module, so
the rewrites stand."""

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


def calibrate(load_data, grid):
    P, _ = load_data()
    P.c = 1540  # the acquisition's speed of sound
    P.fs = P.fs * 2
    return DelayAndSum(P, grid)
