import torch

from codemod.examples import example

example(
    "input.WeightedAsymmetricLoss",
    weight=torch.tensor([1.0, 2.0], dtype=torch.float64),
    inputs=lambda: (torch.rand(3, 2), torch.rand(3, 2)),
)
