import torch

from input import Demapper

constellation = torch.linspace(-1.0, 1.0, 4)
model = Demapper(4, constellation, "cpu")
