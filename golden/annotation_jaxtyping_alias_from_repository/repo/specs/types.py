from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from jaxtyping import Float

    Spectrum = Float[torch.Tensor, "peak 2"]
    Weights = Float[torch.Tensor, "peak"]
