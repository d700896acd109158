from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn as nn

if TYPE_CHECKING:
    from jaxtyping import Float

    from specs.types import Spectrum, Weights


class PeakScorer(nn.Module):
    """Annotations through a module-level alias of another file of the repository
    (`Spectrum = Float[torch.Tensor, "peak 2"]`) type the constructor's argument and forward's
    input alike: the kept weights are a tensor handed in (a plain one, as build_scorer shows:
    the annotation alone would admit an nn.Parameter too), the last spectrum a cache."""

    def __init__(self, weights: Weights):
        super().__init__()
        self.weights = weights
        self.last = None

    def forward(self, spectrum: Float[Spectrum, " batch"]) -> torch.Tensor:
        if self.last is None:
            self.last = spectrum
        return (spectrum[..., 0] * self.weights).sum(-1)


def build_scorer(n: int) -> PeakScorer:
    return PeakScorer(torch.linspace(0.0, 1.0, n))
