"""An annotated tensor attribute becomes a buffer declared on the class."""

import torch
import torch.nn as nn


class RotaryEmbedding(nn.Module):
    inv_freq: torch.Tensor

    def __init__(self, dim=8, base=10000.0):
        super().__init__()
        self.register_buffer(
            "inv_freq",
            1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)),
            persistent=False,
        )

    def forward(self, positions):
        freqs = positions.float()[:, None] * self.inv_freq[None, :]
        return torch.cat([freqs.sin(), freqs.cos()], dim=-1)
