"""A function of the module that binds attributes of the module handed to it, called from
forward: its tensors are reported like any assigned only outside __init__."""

import torch
import torch.nn as nn


class YOLOLayer(nn.Module):
    def __init__(self, anchors=((10, 13), (16, 30))):
        super().__init__()
        self.anchors = [list(a) for a in anchors]
        self.img_size = 0

    def forward(self, p, img_size=64):
        if self.img_size != img_size:
            create_grids(self, img_size, 4)
        return p * self.anchor_vec.sum() + self.grid_xy.sum()


def create_grids(self, img_size, n):
    self.img_size = img_size
    self.stride = img_size / n
    self.grid_xy = torch.arange(n).float()
    self.anchor_vec = torch.tensor(self.anchors) / self.stride
