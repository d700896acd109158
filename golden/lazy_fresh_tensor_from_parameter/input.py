"""`self.weight_ih.new_empty(b, n)` makes a new tensor of the parameter's dtype and device, not
the parameter: a None placeholder filled with it later is a lazy tensor (BUF107), like one
filled by torch.empty."""

import torch
import torch.nn as nn
from torch.nn import Parameter


class VarRNNCell(nn.Module):
    def __init__(self, input_size=4, hidden_size=4, p_in=0.5):
        super().__init__()
        self.input_size = input_size
        self.p_in = p_in
        self.weight_ih = Parameter(torch.randn(hidden_size, input_size))
        self.noise_in = None

    def reset_noise(self, batch_size):
        noise = self.weight_ih.new_empty(batch_size, self.input_size)
        self.noise_in = noise.bernoulli_(1.0 - self.p_in) / (1.0 - self.p_in)

    def forward(self, x):
        if self.noise_in is not None:
            x = x * self.noise_in
        return x @ self.weight_ih.t()


class Scratch(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.weight = Parameter(torch.ones(dim, dim))
        self.workspace = None

    def prepare(self, rows):
        self.workspace = self.weight.new_zeros(rows, self.weight.shape[1])

    def forward(self, x):
        return x @ self.weight + self.workspace.sum()
