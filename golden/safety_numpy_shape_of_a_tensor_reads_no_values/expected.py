"""`np.shape(self.u)` and `np.ndim(self.u)` read the tensor's shape, not its values: they take
a tensor on any device, so they are no CPU-only read (BUF218) and the rewrite goes ahead."""

import numpy as np
import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, u=None):
        super().__init__()
        self.net = nn.Linear(3, 2)
        self.register_buffer("u", torch.zeros(10, 1), persistent=False)

    def forward(self, t, x):
        steps = np.shape(self.u)[0]
        index = min(int(t * steps), steps - 1) if np.ndim(self.u) == 2 else 0
        return self.net(x) * self.u[index]
