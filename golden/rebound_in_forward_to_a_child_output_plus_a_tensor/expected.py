"""A state rebound in forward to what a child module returns: a tensor only by a guess (an
LSTM picked from a ModuleDict returns a tuple), so it stays raw (BUF211).  Plus a tensor
(`+ torch.randn_like(self.theta) * 0.01`), the result is a tensor whatever the child returns
(or the line raises): that state is rewritten, a running state kept out of checkpoints."""

import torch
import torch.nn as nn


class NoisyTransition(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.register_buffer("theta", torch.randn(size * size), persistent=False)
        self.transition = nn.Sequential(nn.Linear(size * size, size * size))

    def forward(self, x):
        self.theta = self.transition(self.theta.view(1, -1)).view(-1) + torch.randn_like(self.theta) * 0.01
        return x * self.theta.sum()


class PickedTransition(nn.Module):
    def __init__(self, size, kind):
        super().__init__()
        self.state = torch.zeros(size)
        self.cells = nn.ModuleDict({"linear": nn.Linear(size, size), "lstm": nn.LSTM(size, size)})
        self.kind = kind

    def forward(self, x):
        self.state = self.cells[self.kind](self.state)
        return x * self.state.sum()
