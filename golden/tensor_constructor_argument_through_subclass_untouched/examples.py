import torch

from codemod.examples import example

example("input.Propagate", torch.eye(2), inputs=lambda: (torch.randn(2, 2),))
example("input.FromTensor", torch.eye(2), inputs=lambda: (torch.randn(2, 2),))
example("input.Forwarding", torch.eye(2), inputs=lambda: (torch.randn(2, 2),))
example("input.ForwardingSub", torch.eye(2), inputs=lambda: (torch.randn(2, 2),))
