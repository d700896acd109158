"""Tensors bound to attributes of self through a tuple target outside __init__ (from a
method's tuple, a recurrent layer's (output, h_n), a function's pair) are reported
(BUF303) like any other per-call value, also through a helper handed a tensor (`split_heads`);
a non-tensor element is not."""

import torch
import torch.nn as nn


def split_heads(x):
    return x[..., : x.shape[-1] // 2], x.shape[-1] // 2


class Spectrum(nn.Module):
    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft

    def transform(self, signal):
        spec = torch.stft(signal, self.n_fft, return_complex=True)
        magnitude = torch.sqrt(spec.real**2 + spec.imag**2)
        phase = torch.atan2(spec.imag, spec.real)
        return magnitude, phase

    def forward(self, signal):
        self.magnitude, self.phase = self.transform(signal)
        return self.magnitude


class Encoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        self.features, h = self.gru(x)
        out, (self.last_hidden, cell) = self.lstm(x)
        return out + h.transpose(0, 1)


class Heads(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        self.first, self.width = split_heads(self.proj(x))
        return self.first
