"""Reference coordinates that require grad only so that outputs can be differentiated with
respect to them, from which a helper __init__ calls computes the physical positions: the
class treats them as fixed, so they are reported (BUF223), not made an nn.Parameter that
every optimizer would move. A weight initialised in place, or whose shape the constructor
reads, is still trained (BUF103)."""

import torch
import torch.nn as nn


class QuadraturePoints(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.xi_ref = torch.linspace(0.0, 1.0, n).unsqueeze(1)
        self.xi_ref.requires_grad_(True)
        self._setup()

    def _setup(self):
        x_phys = 2.0 * self.xi_ref - 1.0
        self.n_points = x_phys.shape[0]

    def forward(self, u):
        return (self.scale * u * self.xi_ref).sum() / self.n_points


class XavierLayer(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.w = torch.empty(n, 1, requires_grad=True)
        nn.init.xavier_uniform_(self.w)
        self.width = self.w.shape[1]

    def forward(self, x):
        return x @ self.w
