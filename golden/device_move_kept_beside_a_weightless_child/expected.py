"""A child module of the repository that holds no weights (a noise layer keeping only numbers
and tensors) says nothing about the model being moved with .to(): such a layer runs on the CPU
unmoved, and one built for a device may be used there without ever being moved. So `Noise`
keeps its moves inside the rewrite; `Denoiser`, whose child `Block` holds a convolution built
on the CPU, must be moved as a whole to run anywhere else, and its move is dropped."""

import torch
import torch.nn as nn


class Jitter(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x + self.scale * torch.randn_like(x)


class Noise(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.jitter = Jitter(0.1)
        self.register_buffer("low", torch.tensor([0.5]).to(device), persistent=False)
        self.register_buffer("high", torch.tensor([1.5]).to(device), persistent=False)

    def forward(self, x):
        return self.jitter(x) * (self.low + (self.high - self.low) * 0.5)


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Denoiser(nn.Module):
    def __init__(self, channels=2, device="cpu"):
        super().__init__()
        self.block = Block(channels)
        self.register_buffer("gain", torch.tensor([2.0]), persistent=False)

    def forward(self, x):
        return self.block(x) * self.gain
