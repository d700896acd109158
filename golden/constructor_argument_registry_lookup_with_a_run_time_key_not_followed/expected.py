"""A registry looked up with a key known only at run time (`MODELS[name](...)`) may call any
of its classes, each with arguments meant for another: such a call types nothing, and the
argument stays as untyped as when nothing calls the class, so nothing is said."""

import torch
import torch.nn as nn


class Normalised(nn.Module):
    def __init__(self, n_in, n_out, mean, std):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.mean = mean
        self.std = std

    def forward(self, x):
        return self.fc((x - self.mean) / self.std)


class Shifted(nn.Module):
    def __init__(self, n_in, n_out, mean, std):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.shift = mean * std

    def forward(self, x):
        return self.fc(x + self.shift)
