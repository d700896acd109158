import torch

from codemod.examples import example

example("input.FocalLoss", torch.tensor([0.3, 0.7]), inputs=lambda: (torch.randn(4, 2), torch.tensor([0, 1, 1, 0])))
