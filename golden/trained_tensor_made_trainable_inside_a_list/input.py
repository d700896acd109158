"""Hand-written recurrent weights made trainable inside the list an optimizer is given
(`self.params = [self.w_in.requires_grad_(), ...]`): they require grad as surely as after a
statement of their own, and they are trained through that list, so they stay plain tensors
and are reported (as buffers, .to() and casts would give forward copies that the optimizer
never updates).  The tuple case is the same; the step table, never made trainable, becomes a
buffer."""

import numpy as np
import torch
import torch.nn as nn


class TreeCell(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.w_in = torch.from_numpy(np.random.normal(scale=0.1, size=(hidden, vocab))).float()
        self.b_in = torch.zeros(hidden)
        self.params = [self.w_in.requires_grad_(), self.b_in.requires_grad_()]

    def forward(self, x):
        return torch.tanh(self.w_in @ x + self.b_in)


class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = torch.ones(n)
        self.steps = torch.arange(n)
        self.trainable = (self.scale.requires_grad_(),)

    def forward(self, x):
        return x[..., self.steps] * self.scale
