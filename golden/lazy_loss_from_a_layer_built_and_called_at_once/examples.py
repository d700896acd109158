import torch

from codemod.examples import example

example("input.Detector", inputs=lambda: (torch.ones(2, 3, 4, 4), torch.zeros(2, 3, 4, 4)))
example("input.TrainingDetector", inputs=lambda: (torch.ones(2, 3, 4, 4), torch.zeros(2, 3, 4, 4)))
