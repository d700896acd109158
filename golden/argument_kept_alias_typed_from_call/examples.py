import torch

from codemod.examples import example

example(
    "input.ContextAwareLoss",
    K=torch.tensor([[-20.0, -20.0], [-10.0, -10.0], [60.0, 10.0], [90.0, 20.0]]),
    inputs=lambda: (torch.randn(4, 2), torch.rand(4, 2)),
)
