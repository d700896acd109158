"""A model registry: `MODELS = {"plain": Plain, "normalised": Normalised}` in another module,
whose builder looks a class up with a constant key and calls it, handing in the training
data's statistics (0-dim tensors). That call is a call of the class the key names, so the
statistics are typed from it, as a call by the class's own name would type them."""

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


class Plain(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)

    def forward(self, x):
        return self.fc(x)
