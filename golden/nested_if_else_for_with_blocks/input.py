"""Assignments inside if/elif/else, for and with blocks are rewritten where they stand."""

import torch
import torch.nn as nn


class Window(nn.Module):
    def __init__(self, size=8, kind="hann", levels=3):
        super().__init__()
        if kind == "hann":
            self.window = torch.hann_window(size)
        elif kind == "hamming":
            self.window = torch.hamming_window(size)
        else:
            self.window = torch.ones(size)
        for level in range(levels):
            if level == levels - 1:
                self.top_scale = torch.full((size,), 2.0 ** level)
        with torch.no_grad():
            self.norm = self.window / self.window.sum()

    def forward(self, frames):
        return frames * self.norm * self.top_scale
