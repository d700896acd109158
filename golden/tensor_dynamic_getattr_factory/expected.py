"""Factories looked up by name with getattr(torch, name)(...)."""

import torch
import torch.nn as nn


class Framer(nn.Module):
    def __init__(self, win_length=8, init="zeros"):
        super().__init__()
        self.register_buffer(
            "window", getattr(torch, "hann_window")(win_length), persistent=False
        )
        self.register_buffer(
            "offset", getattr(torch, init)(win_length), persistent=False
        )

    def forward(self, frames):
        return frames * self.window + self.offset
