"""nn.Linear's constructor calls `self.reset_parameters()`: a subclass's override runs inside
`super().__init__()`, after nn.Module.__init__, so what it binds is constructor state. Here it
empties a cache that forward fills with a tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class OrthogonalLinear(nn.Linear):
    def __init__(self, in_features=4, out_features=4, bias=True):
        super().__init__(in_features, out_features, bias)
        self.alpha = nn.Parameter(torch.ones(1))

    def reset_parameters(self):
        std = 1 / self.weight.shape[1] ** 0.5
        nn.init.uniform_(self.weight, -std, std)
        if self.bias is not None:
            self.bias.data.uniform_(-std, std)
        self.Q = None  # the orthogonal weight, built by forward

    def forward(self, x):
        if self.training or self.Q is None:
            skew = self.weight - self.weight.t()
            self.Q = torch.linalg.matrix_exp(self.alpha * skew)
        return F.linear(x, self.Q if self.training else self.Q.detach(), self.bias)


class ScaledConv(nn.Conv1d):
    def __init__(self, channels=2):
        super(ScaledConv, self).__init__(channels, channels, 3, padding=1)

    def reset_parameters(self):
        super().reset_parameters()
        self.register_buffer(
            "scale", torch.ones(self.out_channels, 1), persistent=False
        )

    def forward(self, x):
        return super().forward(x) * self.scale
