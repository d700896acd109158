import torch

from codemod.examples import example

example("input.CenterLoss", inputs=lambda: (torch.randn(5, 4), torch.tensor([0, 1, 2, 1, 0])))
