import numpy as np
import torch

from input import WeightedAsymmetricLoss


def main(path):
    weight = torch.from_numpy(np.loadtxt(path))
    if torch.cuda.is_available():
        weight = weight.cuda()
    return WeightedAsymmetricLoss(weight=weight)
