"""A module-level lambda of the same module (`as_grid = lambda n: torch.stack(...)`) types
the attributes its calls bind. A name bound twice at module level is left alone: which
lambda a call meets depends on the order of the module's code."""

import torch
import torch.nn as nn

as_grid = lambda n: torch.stack(torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij"), -1)  # noqa: E731
scale_of = lambda n: torch.full((n,), 1.0 / n)  # noqa: E731
scale_of = lambda n: 1.0 / n  # noqa: E731


class GridSampler(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.grid = as_grid(n)
        self.scale = scale_of(n)

    def forward(self, x):
        return x + self.grid.sum(-1) * self.scale
