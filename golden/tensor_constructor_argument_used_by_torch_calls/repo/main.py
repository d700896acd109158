import numpy as np
import torch

from input import Masked, NllLoss, WeightedLoss

weights = torch.from_numpy(np.array([1.0, 2.0])).float()
criterion = WeightedLoss([0.5], weights)
nll = NllLoss(weight=torch.ones(2))
masked = Masked(torch.eye(3), torch.eye(3), torch.ones(3), torch.arange(3).float(), torch.tensor([2, 0, 1]))
