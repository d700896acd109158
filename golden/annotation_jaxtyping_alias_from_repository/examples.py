import torch

from codemod.examples import example

example("input.PeakScorer", torch.ones(3), inputs=lambda: (torch.ones(2, 3, 2),))
