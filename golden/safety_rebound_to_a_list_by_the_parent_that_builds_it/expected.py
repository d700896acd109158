"""A network that builds its region layer and then sets its anchors to a list: as a buffer,
`region.anchors = [...]` would raise TypeError, so the layer's tensor is reported."""

import torch
import torch.nn as nn


class RegionLayer(nn.Module):
    def __init__(self, anchors=(1.0, 2.0, 3.0, 4.0)):
        super().__init__()
        self.anchors = torch.tensor(anchors)

    def forward(self, x):
        return x * torch.as_tensor(self.anchors).mean()


def create_network(blocks):
    layers = nn.ModuleList()
    for block in blocks:
        region = RegionLayer()
        region.anchors = [float(a) for a in block["anchors"].split(",")]
        layers.append(region)
    return layers
