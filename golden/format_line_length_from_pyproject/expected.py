"""The line length comes from the project's pyproject.toml (here 100, for black)."""

import torch
import torch.nn as nn


class Pooler(nn.Module):
    def __init__(self, hidden_size=8, max_positions=32):
        super().__init__()
        self.register_buffer(
            "position_ids", torch.arange(max_positions).unsqueeze(0), persistent=False
        )
        self.register_buffer(
            "hidden_scale", torch.full((hidden_size,), 1.0 / hidden_size**0.5), persistent=False
        )
        self.register_buffer(
            "position_weights",
            torch.linspace(0.0, 1.0, max_positions).unsqueeze(-1),
            persistent=False,
        )

    def forward(self, x):
        return x * self.hidden_scale + self.position_weights[: x.size(1)] + self.position_ids.sum()
