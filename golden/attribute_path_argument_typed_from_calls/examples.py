import types

import torch

from codemod.examples import example

args = types.SimpleNamespace(gso=torch.eye(3), device="cpu", order=2)
config = types.SimpleNamespace(adj=torch.ones(3, 3) / 3)
example("input.STGCN", args, config, inputs=lambda: (torch.ones(3, 3),))
