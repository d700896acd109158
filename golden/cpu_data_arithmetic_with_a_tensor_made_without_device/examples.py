import torch

from codemod.examples import example

example("input.Shift", inputs=lambda: (torch.ones(2, 5),))
example("input.Scaled", inputs=lambda: (torch.ones(2, 5),))
