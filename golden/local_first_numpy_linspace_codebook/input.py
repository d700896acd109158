"""An attribute first bound to a numpy array, then converted to a tensor: built in a local, registered once."""

import numpy as np
import torch
import torch.nn as nn


class Codebook(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.codes = np.linspace(-1.0, 1.0, size)
        self.codes = torch.from_numpy(self.codes).float()

    def forward(self, x):
        return torch.cdist(x, self.codes[:, None]).argmin(-1)
