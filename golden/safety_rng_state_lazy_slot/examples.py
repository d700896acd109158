import torch

from codemod.examples import example

example("input.Deterministic", torch.nn.Dropout(0.5), inputs=lambda: (torch.ones(2, 3),))
