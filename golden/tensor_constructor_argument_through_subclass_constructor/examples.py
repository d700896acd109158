import torch

from codemod.examples import example

example("input.GraphBase", torch.tensor([[0], [1]]), torch.tensor([1, 0]), 2, inputs=lambda: (torch.randn(2, 2),))
example("input.Graph", torch.tensor([[0], [1]]), torch.tensor([1, 0]), inputs=lambda: (torch.randn(2, 2),))
example("input.NamedGraph", torch.tensor([[0], [1]]), torch.tensor([1, 0]), inputs=lambda: (torch.randn(2, 2),))
example("input.DeepGraph", torch.tensor([[0], [1]]), torch.tensor([1, 0]), inputs=lambda: (torch.randn(2, 2),))
example("input.Mask", torch.ones(2, 2, dtype=torch.bool).triu(1), inputs=lambda: (torch.randn(2, 2),))
example("input.CausalMask", torch.ones(2, 2, dtype=torch.bool).triu(1), inputs=lambda: (torch.randn(2, 2),))
