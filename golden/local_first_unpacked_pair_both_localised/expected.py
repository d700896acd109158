import numpy as np
import torch
import torch.nn as nn


class TpsGridGen(nn.Module):
    def __init__(self, out_h=16, out_w=16):
        super().__init__()
        grid_X, grid_Y = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
        self.register_buffer(
            "grid_X",
            torch.FloatTensor(grid_X).unsqueeze(0).unsqueeze(3),
            persistent=False,
        )
        self.register_buffer(
            "grid_Y",
            torch.FloatTensor(grid_Y).unsqueeze(0).unsqueeze(3),
            persistent=False,
        )

    def forward(self, theta):
        return theta * torch.cat((self.grid_X, self.grid_Y), 3)
