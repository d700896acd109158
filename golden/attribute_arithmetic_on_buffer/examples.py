import torch

from codemod.examples import example

example("input.Field", torch.tensor([[0.0, 0.0], [2.0, 4.0]]), inputs=lambda: (torch.ones(3, 2),))
example("input.Box", torch.tensor([[0.0, 0.0], [2.0, 2.0]]), inputs=lambda: (torch.ones(3, 2),))
