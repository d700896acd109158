import torch
import torch.nn as nn


class LIFLayer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("alpha", torch.full((n,), 0.9))
        self.register_buffer("beta", torch.full((n,), 0.85))

    def forward(self, x):
        return x * self.alpha + self.beta


class LIFLayerVariableTau(LIFLayer):
    def __init__(self, n, dt=1e-3):
        super().__init__(n)
        # the means the decays are drawn around: kept under names of their own
        self.alpha_mean = self.alpha
        self.beta_mean = self.beta.data
        self.dt = dt

    def randomize(self):
        self.alpha.copy_(torch.normal(self.alpha_mean, 0.01))
        self.beta.copy_(torch.normal(self.beta_mean, 0.01))


class Shared(nn.Module):
    """A copy of a parameter is registered by Module.__setattr__: nothing to report."""

    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.tied = self.weight

    def forward(self, x):
        return x * self.tied
