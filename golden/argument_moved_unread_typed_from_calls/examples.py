import torch

from codemod.examples import example

example("input.Detector", torch.arange(16).view(4, 4), 0, inputs=lambda: (torch.randn(2, 8),))
