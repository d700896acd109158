import math

import torch
import torch.nn as nn


class Fibre(nn.Module):
    """Split-step propagation over a fibre span; the signature hangs at the def's indent."""
    def __init__(self, n_channels=2, n_fft=16, length=1000.0, step=100.0,
    nonlinear=False, width=60,
    depth=2):
        super().__init__()
        # nonlinear coefficient per channel and frequency bin
        self.register_buffer("gamma", torch.ones(n_channels, n_fft), persistent=False)
        self.register_buffer(
            "freqs",
            torch.fft.fftshift(torch.arange(n_fft) - 0.5 * n_fft) / n_fft,
            persistent=False,
        )  # cycles per sample
        self.steps = int(math.ceil(length / step))

    def forward(self, u):
        for _ in range(self.steps):
            u = u * self.gamma + self.freqs
        return u
