import torch

from codemod.examples import example

example("input.Bilinear", inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)))
