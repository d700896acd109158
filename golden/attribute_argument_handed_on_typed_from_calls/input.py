import torch
import torch.nn as nn


def focal_loss(logits, target, weight=None, gamma=2.0):
    prob = torch.softmax(logits, dim=1)
    one_hot = torch.nn.functional.one_hot(target, logits.size(1)).float()
    loss = -one_hot * torch.log(prob) * (1 - prob) ** gamma
    if weight is not None:
        loss = loss * weight
    return loss.sum(1).mean()


class FocalLoss(nn.Module):
    """`focal_loss(logits, y, weight=self.weight)` hands weight on with the inputs: the
    repository's calls (repo/train.py) say it is a tensor; gamma is a number there."""

    def __init__(self, weight=None, gamma=2.0):
        super().__init__()
        self.weight = weight
        self.gamma = gamma

    def forward(self, logits, y):
        return focal_loss(logits, y, weight=self.weight, gamma=self.gamma)
