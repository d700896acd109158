import numpy as np
import torch
import torch.nn as nn


class Warp(nn.Module):
    """Only grid_x becomes a tensor; grid_y stays a numpy array that plot() reads."""

    def __init__(self, out_h=16, out_w=16):
        super().__init__()
        grid_x, self.grid_y = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
        self.register_buffer(
            "grid_x", torch.from_numpy(grid_x).float().unsqueeze(0), persistent=False
        )  # the sampling grid

    def plot(self):
        return self.grid_y.mean()

    def forward(self, theta):
        return theta * self.grid_x
