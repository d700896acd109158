import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedBCELoss(nn.Module):
    """`size_average` goes to F.binary_cross_entropy_with_logits as a keyword that aten does
    not know (torch's Python signature takes a bool there); the default says it is a bool."""

    def __init__(self, size_average=True, ignore_label=255):
        super().__init__()
        self.size_average = size_average
        self.ignore_label = ignore_label

    def forward(self, logits, target):
        keep = (target >= 0) * (target != self.ignore_label)
        if not keep.any():
            return torch.zeros(1)
        return F.binary_cross_entropy_with_logits(logits[keep], target[keep], size_average=self.size_average)
