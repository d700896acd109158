import torch

from codemod.examples import example

example("input.RotaryEmbedding", inputs=lambda: (torch.arange(6),))
