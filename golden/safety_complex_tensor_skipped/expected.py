"""Complex tensors stay plain attributes: model.to(torch.bfloat16) casts a complex buffer to
real and discards its imaginary part.  Real views and real values beside them are rewritten."""

import torch
import torch.nn as nn


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(end).float()
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


class Rotary(nn.Module):
    def __init__(self, dim=4, end=8):
        super().__init__()
        self.freqs_cis = precompute_freqs_cis(dim, end)
        angles = torch.arange(end)[:, None] * torch.ones(dim // 2)
        self.phasor = torch.exp(1j * angles)
        pairs = torch.stack([torch.cos(angles), torch.sin(angles)], dim=-1)
        self.packed = torch.view_as_complex(pairs)
        self.spectrum = torch.fft.rfft(torch.ones(end))
        self.kernel = torch.zeros(end, dtype=torch.cfloat)
        self.register_buffer(
            "real_view",
            torch.view_as_real(torch.polar(torch.ones(dim), torch.zeros(dim))),
            persistent=False,
        )
        self.register_buffer(
            "magnitude", torch.fft.rfft(torch.ones(end)).abs(), persistent=False
        )

    def forward(self, x):
        rotated = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2)) * self.freqs_cis[: x.shape[0]]
        return torch.view_as_real(rotated).flatten(-2) + self.real_view.sum() + self.magnitude.sum()
