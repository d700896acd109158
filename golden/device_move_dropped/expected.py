"""Construction-time moves to a device are dropped: the module's .to() moves buffers."""

import torch
import torch.nn as nn


class DetectorConfig:
    def __init__(self, num_anchors=3, device="cpu"):
        self.num_anchors = num_anchors
        self.device = device


class AnchorHead(nn.Module):
    def __init__(self, config=None, device="cpu"):
        super().__init__()
        if config is None:
            config = DetectorConfig()
        self.proj = nn.Linear(4, config.num_anchors)
        self.register_buffer(
            "anchors", torch.linspace(0.1, 0.9, config.num_anchors), persistent=False
        )
        self.register_buffer("scales", torch.ones(config.num_anchors), persistent=False)
        self.register_buffer(
            "offsets", torch.zeros(config.num_anchors), persistent=False
        )
        self.register_buffer("grid", torch.arange(config.num_anchors), persistent=False)

    def forward(self, x):
        return self.proj(x) * self.scales + self.anchors + self.offsets + self.grid
