"""Values computed from other tensor attributes of self."""

import torch
import torch.nn as nn


class RelativePosition(nn.Module):
    def __init__(self, max_len=8, max_distance=4):
        super().__init__()
        self.register_buffer("positions", torch.arange(max_len), persistent=False)
        self.register_buffer(
            "relative",
            self.positions[None, :] - self.positions[:, None],
            persistent=False,
        )
        self.register_buffer(
            "buckets",
            self.relative.clamp(-max_distance, max_distance) + max_distance,
            persistent=False,
        )
        self.emb = nn.Embedding(2 * max_distance + 1, 4)

    def forward(self, x):
        length = x.size(1)
        return x + self.emb(self.buckets[:length, :length]).sum(1)
