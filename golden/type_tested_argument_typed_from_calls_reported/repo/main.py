import torch

from input import Normalize

norm = Normalize(torch.tensor([0.5, 0.5, 0.5]))
