"""`torch.Tensor(u)` of a required argument: a tensor whatever the caller hands (a list, an
array), rebuilt on each construction. Validation makes the argument up as a number first,
which `torch.Tensor` refuses ("data must be a sequence"), then as a tensor."""

import torch
import torch.nn as nn


class ControlledODE(nn.Module):
    def __init__(self, u):
        super().__init__()
        self.net = nn.Linear(2, 2)
        self.u = torch.Tensor(u)

    def forward(self, x):
        return self.net(x) * self.u.mean()
