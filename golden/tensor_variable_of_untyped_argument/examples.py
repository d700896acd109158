import torch

from codemod.examples import example

example("input.mIoULoss", torch.tensor([0.3, 0.7]), inputs=lambda: (torch.rand(2, 2, 4, 4), torch.rand(2, 2, 4, 4)))
