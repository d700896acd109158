import torch

from codemod.examples import example

example("input.PositionalEncoding", inputs=lambda: (torch.randn(2, 5, 8),))
