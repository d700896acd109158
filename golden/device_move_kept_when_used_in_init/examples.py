import torch

from codemod.examples import example

example("input.GraphConv", adj=torch.eye(3), inputs=lambda: (torch.ones(3, 3),))
