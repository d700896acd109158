import torch
import torch.nn as nn
from torch.autograd import Variable


class mIoULoss(nn.Module):
    def __init__(self, weight=None, size_average=True, n_classes=2):
        super().__init__()
        self.classes = n_classes
        # Variable(x) raises unless x is a tensor or None: what it returns is a tensor
        self.weights = Variable(weight)

    def forward(self, inputs, target):
        inter = (inputs * target).sum(2).sum(2)
        union = (inputs + target - inputs * target).sum(2).sum(2)
        return -torch.mean(self.weights * inter / (union + 1e-8))


class Trainable(nn.Module):
    """requires_grad=True on a value not proven a tensor: not a rewrite the analysis can prove."""

    def __init__(self, init):
        super().__init__()
        self.scale = Variable(init, requires_grad=True)

    def forward(self, x):
        return x * self.scale
