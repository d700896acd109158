"""Assignments inside if/elif/else, for and with blocks are rewritten where they stand."""

import torch
import torch.nn as nn


class Window(nn.Module):
    def __init__(self, size=8, kind="hann", levels=3):
        super().__init__()
        if kind == "hann":
            self.register_buffer("window", torch.hann_window(size), persistent=False)
        elif kind == "hamming":
            self.register_buffer("window", torch.hamming_window(size), persistent=False)
        else:
            self.register_buffer("window", torch.ones(size), persistent=False)
        for level in range(levels):
            if level == levels - 1:
                self.register_buffer(
                    "top_scale", torch.full((size,), 2.0 ** level), persistent=False
                )
        with torch.no_grad():
            self.register_buffer(
                "norm", self.window / self.window.sum(), persistent=False
            )

    def forward(self, frames):
        return frames * self.norm * self.top_scale
