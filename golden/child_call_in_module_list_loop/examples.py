import torch

from codemod.examples import example

example("input.Stack", torch.ones(3, 3) / 3, inputs=lambda: (torch.ones(3, 3),))
