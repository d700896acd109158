import torch

from codemod.examples import example

example("input.Decoder", inputs=lambda: (torch.randn(2, 6, 8),))
