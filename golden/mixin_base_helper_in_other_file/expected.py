"""A mixin from another file of the repository that binds a tensor on self: reported with
the file and line of the binding."""

import torch
import torch.nn as nn

from helpers import AnchorMixin


class Head(AnchorMixin, nn.Module):
    def __init__(self, sizes=(1.0, 2.0)):
        super().__init__()
        self.conv = nn.Conv2d(3, len(sizes), 1)
        self.make_anchors(sizes)

    def forward(self, x):
        return self.conv(x) * self.anchors[None, :, None, None]
