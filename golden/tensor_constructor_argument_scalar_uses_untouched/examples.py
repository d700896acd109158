import torch

from codemod.examples import example

example("input.TopK", 2, 0.0, 0.5, inputs=lambda: (torch.randn(5),))
example("input.ClassWeights", [1.0, 2.0])
example("input.Mixed", torch.eye(2), inputs=lambda: (torch.ones(2, 2),))
