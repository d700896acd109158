"""Method chains, .T and indexing on top of a factory keep the value a tensor."""

import torch
import torch.nn as nn


class Projector(nn.Module):
    def __init__(self, dim=6, rank=3):
        super().__init__()
        self.register_buffer(
            "basis", torch.eye(dim)[:rank].T, persistent=False
        )  # (dim, rank)
        self.register_buffer(
            "row_ids",
            torch.arange(dim * rank).view(dim, rank)[:, 0].long(),
            persistent=False,
        )
        self.register_buffer(
            "weights", torch.linspace(0, 1, rank).unsqueeze(0).float(), persistent=False
        )
        self.register_buffer(
            "flipped",
            torch.ones(dim, rank).cumsum(0)[..., -1].flip(0).contiguous(),
            persistent=False,
        )

    def forward(self, x):
        return (x @ self.basis) * self.weights
