import torch

from codemod.examples import example

example("input.Reservoir", inputs=lambda: (torch.randn(2, 3),))
