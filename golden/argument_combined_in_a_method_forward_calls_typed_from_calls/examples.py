import torch

from codemod.examples import example

example("input.Gate", 4, (torch.arange(4) % 2).float(), scale=0.5, inputs=lambda: (torch.randn(2, 4),))
