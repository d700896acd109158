"""Forward draws `torch.rand(1)` (no `device=`: a one-element CPU tensor) and meets the grid
with it by arithmetic. As a plain attribute the grid stays on the CPU when the model moves, so
they meet on the CPU; as a buffer the grid would follow the model to the GPU and meet a CPU
tensor of one dimension, which torch refuses: reported (BUF218). A 0-dim draw
(`torch.tensor(0.5)`) mixes with CUDA tensors, and a draw moved to the input's device meets
the buffer there, so `Shift.offset` and `Scaled.gain` are rewritten."""

import torch
import torch.nn as nn


class Blob(nn.Module):
    def __init__(self, size=5):
        super().__init__()
        self.grid = torch.linspace(-1.0, 1.0, size)

    def forward(self, x):
        center = torch.rand(1) * 0.5
        width = 0.2 + torch.rand(1)
        blob = torch.exp(-((self.grid - center) / width) ** 2)
        return x * blob.to(x.device)


class Shift(nn.Module):
    def __init__(self, size=5):
        super().__init__()
        self.offset = torch.linspace(0.0, 1.0, size)

    def forward(self, x):
        return x + self.offset * torch.tensor(0.5)


class Scaled(nn.Module):
    def __init__(self, size=5):
        super().__init__()
        self.gain = torch.linspace(1.0, 2.0, size)

    def forward(self, x):
        return x * self.gain * torch.rand(1).to(x.device)
