import torch

from codemod.examples import example

example("input.RelativePosition", inputs=lambda: (torch.randn(2, 5, 4),))
