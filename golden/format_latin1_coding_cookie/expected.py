# -*- coding: latin-1 -*-
"""Température: a source file encoded in latin-1 stays latin-1 (café, naïve, señal)."""

import torch
import torch.nn as nn


class Température(nn.Module):
    def __init__(self, size=3):
        super().__init__()
        étiquette = "échelle"; self.register_buffer("échelle", torch.linspace(0.5, 1.5, size), persistent=False)
        self.register_buffer(
            "décalage", torch.zeros(size), persistent=False
        )  # décalage initial

    def forward(self, x):
        return x * self.échelle + self.décalage
