import torch

from codemod.examples import example

example("input.Encoder", 4, 4, torch.eye(3) + 0.5, inputs=lambda: (torch.randn(3, 4),))
