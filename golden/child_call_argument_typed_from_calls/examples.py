import torch

from codemod.examples import example

example("input.Encoder", torch.eye(3, dtype=torch.bool), keep=0.5, inputs=lambda: (torch.ones(3, 3),))
