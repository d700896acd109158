"""An agent that silences its network's noise by assigning a number through another object:
nothing types `self.model`, but as a buffer `sigma_rec` would refuse the 0, so it is reported."""

import math

import torch
import torch.nn as nn


class RNN(nn.Module):
    def __init__(self, hidden=4, alpha=0.2, sigma_rec=0.1):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(hidden, hidden))
        self.sigma_rec = torch.tensor(math.sqrt(2.0 / alpha) * sigma_rec)  # noise scale
        self.offset = torch.tensor(0.5)  # assigned nowhere else: a buffer

    def forward(self, h):
        return h @ self.weight + self.sigma_rec * torch.randn_like(h) + self.offset


class Agent:
    def __init__(self, model, hp):
        self.model = model
        self.model.sigma_rec = hp["sigma_rec"]  # a number from the hyperparameters

    def quiet(self):
        saved = self.model.sigma_rec
        self.model.sigma_rec = 0
        return saved
