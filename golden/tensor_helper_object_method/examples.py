import torch

from codemod.examples import example

example("input.Recogniser", "abc", ["ab", "c"], inputs=lambda: (torch.zeros(3, 8),))
