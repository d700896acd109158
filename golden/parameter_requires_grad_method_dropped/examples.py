import torch

from codemod.examples import example

example("input.PromptTuning", inputs=lambda: (torch.randn(2, 3, 8),))
