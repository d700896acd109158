import torch

from codemod.examples import example

example("input.GraphConv", torch.eye(3), torch.ones(3, 3), inputs=lambda: (torch.ones(3, 3),))
