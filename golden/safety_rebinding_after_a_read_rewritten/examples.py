import torch

from codemod.examples import example

example("input.Smoother", inputs=lambda: (torch.randn(2, 1, 16),))
