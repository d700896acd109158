import torch

from input import FocalLoss


def get_criterion(weights):
    class_weights = torch.FloatTensor(weights)
    return FocalLoss(gamma=0.0, weight=class_weights)
