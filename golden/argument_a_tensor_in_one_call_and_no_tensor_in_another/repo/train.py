import torch

from input import Rotation, WeightedLoss

fixed = Rotation(torch.tensor(0.5))
named = Rotation("phi")
per_class = WeightedLoss(torch.tensor([0.25, 0.75]))
uniform = WeightedLoss(1.0)
