import torch

from codemod.examples import example

example("input.Scaler", inputs=lambda: (torch.randn(2, 3),))
