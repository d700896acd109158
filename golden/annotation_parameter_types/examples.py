import torch

from codemod.examples import example

example("input.Layer", torch.eye(3), mask=torch.ones(3, dtype=torch.bool), bias=torch.zeros(3), weight=torch.nn.Parameter(torch.ones(3)), inputs=lambda: (torch.ones(3, 2),))
