"""A random tensor drawn before super().__init__() of a base that draws random numbers too: skipped."""

import torch
import torch.nn as nn


class NoisyLinear(nn.Linear):
    def __init__(self, in_features=4, out_features=4):
        self.noise = torch.randn(out_features) * 0.1
        super().__init__(in_features, out_features)

    def forward(self, x):
        return super().forward(x) + self.noise
