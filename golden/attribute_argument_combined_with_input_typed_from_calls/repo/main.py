import torch

from input import CouplingLayer

num_inputs = 4
mask = torch.arange(0, num_inputs) % 2
mask = mask.float()
layers = []
for _ in range(3):
    layers.append(CouplingLayer(num_inputs, mask, scale=0.5))
    mask = 1 - mask
