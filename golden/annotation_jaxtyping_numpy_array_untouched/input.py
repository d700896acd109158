from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch.nn as nn

if TYPE_CHECKING:
    from jaxtyping import Float


class Binner(nn.Module):
    """A jaxtyping annotation of a numpy array (`Float[np.ndarray, "n"]`) is no tensor: the
    kept edges stay as they are, with nothing to report."""

    def __init__(self, edges: Float[np.ndarray, "n"]):
        super().__init__()
        self.edges = edges

    def forward(self, x):
        return x
