import torch
import torch.nn as nn


class ODEfunc(nn.Module):
    """The noise probe is handed in by a setup method (None by default), or drawn by forward."""

    def __init__(self, diffeq):
        super().__init__()
        self.diffeq = diffeq

    def before_odeint(self, e=None):
        self._e = e

    def forward(self, t, y):
        if self._e is None:
            self._e = torch.randn_like(y)
        return self.diffeq(t, y) + self._e
