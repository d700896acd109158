import torch

from codemod.examples import example

example("input.Attention", inputs=lambda: (torch.randn(2, 5, 8),))
