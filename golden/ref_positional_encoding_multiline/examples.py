import torch

from codemod.examples import example

example("input.PositionalEncoding", d_model=16, max_len=64, inputs=lambda: (torch.randn(2, 10, 16),))
