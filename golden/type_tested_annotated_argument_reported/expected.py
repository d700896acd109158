from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightedLoss(nn.Module):
    """The annotation says Tensor, but the constructor converts lists itself: registering the
    argument as it comes would raise TypeError for a list, so it is reported."""

    def __init__(self, weight: Optional[torch.Tensor] = None, reduction: str = "mean"):
        super().__init__()
        self.weight = weight
        self.reduction = reduction
        if weight is not None and not isinstance(weight, torch.Tensor):
            self.weight = torch.tensor(weight, dtype=torch.float)

    def forward(self, inputs, targets):
        return F.cross_entropy(inputs, targets, weight=self.weight, reduction=self.reduction)
