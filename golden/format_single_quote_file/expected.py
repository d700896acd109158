"""A file written with single quotes gets single-quoted buffer names."""

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, tags=('B', 'I', 'O'), mode='mean'):
        super().__init__()
        self.mode = mode
        self.register_buffer(
            'transitions_between_the_tags',
            torch.zeros(len(tags), len(tags)),
            persistent=False,
        )
        self.register_buffer('start', torch.zeros(len(tags)), persistent=False)

    def forward(self, x):
        return x + self.start.sum() + self.transitions_between_the_tags.sum()
