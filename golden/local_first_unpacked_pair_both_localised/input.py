import numpy as np
import torch
import torch.nn as nn


class TpsGridGen(nn.Module):
    def __init__(self, out_h=16, out_w=16):
        super().__init__()
        self.grid_X, self.grid_Y = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
        self.grid_X = torch.FloatTensor(self.grid_X).unsqueeze(0).unsqueeze(3)
        self.grid_Y = torch.FloatTensor(self.grid_Y).unsqueeze(0).unsqueeze(3)

    def forward(self, theta):
        return theta * torch.cat((self.grid_X, self.grid_Y), 3)
