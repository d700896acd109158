import torch

from codemod.examples import example

example("input.WeightedLoss", [0.5], torch.tensor([1.0, 2.0]), inputs=lambda: (torch.randn(4, 2), torch.tensor([0, 1, 1, 0])))
example("input.NllLoss", torch.ones(2), inputs=lambda: (torch.randn(4, 2), torch.tensor([0, 1, 1, 0])))
example(
    "input.Masked", torch.eye(3), torch.eye(3), torch.ones(3), torch.arange(3).float(), torch.tensor([2, 0, 1]),
    inputs=lambda: (torch.randn(3, 3),),
)
