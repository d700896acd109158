import torch

from codemod.examples import example

example("input.Demapper", 4, torch.linspace(-1.0, 1.0, 4), "cpu", inputs=lambda: (torch.randn(2, 4),))
