"""A torch.nn base class that registers a buffer (`_WeightedLoss` registers `weight`,
`BatchNorm1d` its running statistics) keeps it one: assigning a tensor to that name fills the
buffer, so nothing is reported for it; a name the base does not register still is."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.loss import _WeightedLoss


class WeightedLoss(_WeightedLoss):
    def __init__(self, weight=None):
        super().__init__(weight=weight)
        self.weight = weight

    def forward(self, input, target):
        log_pred = F.log_softmax(input, 1)
        if self.weight is not None:
            target = target * self.weight.unsqueeze(1) / self.weight.sum()
        return -(target * log_pred).sum(dim=1).mean()


class FrozenNorm(nn.BatchNorm1d):
    def __init__(self, num_features=4):
        super().__init__(num_features)
        self.running_mean = torch.zeros(num_features)
        self.shift = torch.zeros(num_features)

    def forward(self, x):
        return super().forward(x) + self.shift
