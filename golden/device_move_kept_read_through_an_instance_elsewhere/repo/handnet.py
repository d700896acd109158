import torch
import torch.nn as nn

from input import AtlasBranch


class LaplacianLoss(nn.Module):
    def __init__(self, vertices):
        super().__init__()
        self.vertices = vertices


class HandNet(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.atlas_branch = AtlasBranch(device=device)
        self.laplacian = LaplacianLoss(self.atlas_branch.test_verts)

    def forward(self, x):
        return self.atlas_branch(x)
