"""`self.alpha = self.alpha.to(logits.device)` in forward rebinds the attribute to itself,
moved: a tensor stays a tensor (a buffer stays one), so it says nothing new about what the
attribute holds. The class weights are typed from the repository's call; the `reset` method's
rebinding to a list is another kind, which stops the rewrite of `table`. `SmoothedLoss`, which
nothing in the repository builds, is reported for what its annotation admits (an nn.Parameter),
not for its move in forward."""

from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightedLoss(nn.Module):
    def __init__(self, alpha: Optional[torch.Tensor] = None, gamma: float = 2.0):
        super().__init__()
        self.gamma = gamma
        self.register_buffer("alpha", alpha, persistent=False)
        self.table = torch.zeros(4)

    def forward(self, logits, targets):
        loss = F.cross_entropy(logits, targets, reduction="none")
        if self.alpha is not None:
            if self.alpha.device != logits.device:
                self.alpha = self.alpha.to(logits.device)
            loss = loss * self.alpha.gather(0, targets)
        return (loss * (1 - torch.exp(-loss)) ** self.gamma).mean() + self.table.sum()

    def reset(self):
        self.table = [0.0] * 4


def build_loss(counts):
    return WeightedLoss(alpha=1.0 / torch.tensor(counts, dtype=torch.float32))


class SmoothedLoss(nn.Module):
    def __init__(self, weight: Optional[torch.Tensor] = None, eps: float = 0.1):
        super().__init__()
        self.eps = eps
        self.weight = weight

    def forward(self, logits, targets):
        if self.weight is not None:
            self.weight = self.weight.to(logits.device)
        return F.cross_entropy(logits, targets, weight=self.weight, label_smoothing=self.eps)
