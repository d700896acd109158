import torch

from codemod.examples import example

example("input.WeightedLoss", alpha=torch.tensor([1.0, 0.5, 0.25]), inputs=lambda: (torch.randn(5, 3), torch.tensor([0, 1, 2, 1, 0])))
