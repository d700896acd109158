from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn as nn

if TYPE_CHECKING:
    from jaxtyping import Float


class Encoder(nn.Module):
    """forward's inputs annotated with jaxtyping (`Float[torch.Tensor, "batch dim"]`) are
    tensors: the last input kept by an evaluation call, None until one fills it and read by
    the next, is state the module keeps between calls, an empty buffer slot."""

    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.last_inputs = None

    def forward(self, x: Float[torch.Tensor, "batch dim"]) -> torch.Tensor:
        out = self.proj(x)
        if not self.training:
            if self.last_inputs is not None and self.last_inputs.shape == x.shape:
                out = out + 0.5 * self.last_inputs
            self.last_inputs = x
        return out
