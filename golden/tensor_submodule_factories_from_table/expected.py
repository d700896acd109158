import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence


class Spectral(nn.Module):
    """Factories of torch's namespaces (signal.windows, fft, special, linalg, nn.utils.rnn) and
    an unannotated functional (F.softsign), all read from the generated table."""

    def __init__(self, n=8):
        super().__init__()
        self.register_buffer("window", torch.signal.windows.hann(n), persistent=False)
        self.register_buffer("freqs", torch.fft.rfftfreq(n), persistent=False)
        self.register_buffer(
            "gate", torch.special.expit(torch.linspace(-1.0, 1.0, n)), persistent=False
        )
        self.register_buffer(
            "inverse", torch.linalg.inv(torch.eye(3) * 2.0), persistent=False
        )
        self.register_buffer(
            "padded",
            pad_sequence([torch.ones(2), torch.ones(3)], batch_first=True),
            persistent=False,
        )
        self.register_buffer(
            "soft", F.softsign(torch.linspace(-2.0, 2.0, n)), persistent=False
        )
        self.register_buffer(
            "order", torch.argsort(torch.linspace(1.0, 0.0, n)), persistent=False
        )
        self.register_buffer("flags", torch.isnan(torch.zeros(n)), persistent=False)

    def forward(self, x):
        return x * self.window
