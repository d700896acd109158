import torch

from codemod.examples import example

example("input.SortNet", inputs=lambda: (torch.randn(2, 4),))
