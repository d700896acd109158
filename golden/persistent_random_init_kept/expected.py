"""Random values carry state: their buffers stay persistent (saved in the state_dict)."""

import math

import torch
import torch.nn as nn


class RandomFeatures(nn.Module):
    def __init__(self, in_features=4, num_features=8):
        super().__init__()
        self.register_buffer(
            "projection", torch.randn(in_features, num_features), persistent=False
        )
        self.register_buffer(
            "phase", torch.rand(num_features) * 2 * math.pi, persistent=False
        )
        self.register_buffer("perm", torch.randperm(num_features), persistent=False)
        rotation = torch.empty(num_features, num_features)
        nn.init.orthogonal_(rotation)
        self.register_buffer("rotation", rotation, persistent=False)
        self.register_buffer(
            "dropout_mask", torch.empty(num_features).bernoulli_(0.9), persistent=False
        )

    def forward(self, x):
        z = (x @ self.projection + self.phase)[:, self.perm] @ self.rotation
        return torch.cos(z) * self.dropout_mask
