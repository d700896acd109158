"""A tensor constant imported from another module of the repository, kept as it is and
scaled; an imported number stays a number."""

import torch
from constants import K_MATRIX, NUM_CLASSES


class ContextLoss(torch.nn.Module):
    def __init__(self, framerate=2):
        super().__init__()
        self.K = K_MATRIX * framerate
        self.raw = K_MATRIX
        self.classes = NUM_CLASSES

    def forward(self, labels, scores):
        return torch.sign(labels - self.K[0]) * scores + self.raw.sum() / self.classes
