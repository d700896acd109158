"""A UTF-8 file that starts with a byte order mark keeps it (résumé)."""

import torch
import torch.nn as nn


class Offset(nn.Module):
    def __init__(self, size=3):
        super().__init__()
        self.register_buffer(
            "offset", torch.arange(size) * 0.5, persistent=False
        )  # décalage

    def forward(self, x):
        return x + self.offset
