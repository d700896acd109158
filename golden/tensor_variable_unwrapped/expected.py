"""Variable(t), Variable(t, requires_grad=False) and Variable(t, volatile=True) are t itself
since torch 0.4 (volatile only warns that it has no effect): the buffer holds t."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class Smoother(nn.Module):
    def __init__(self, size=5):
        super().__init__()
        self.register_buffer("kernel", torch.ones(size) / size, persistent=False)
        self.register_buffer(
            "offsets", torch.arange(size) - size // 2, persistent=False
        )
        self.register_buffer("window", torch.hann_window(size), persistent=False)
        weight = torch.ones(size, requires_grad=True)
        # Variable detaches a tensor that requires grad: unwrapping it would change that.
        self.register_buffer("detached", Variable(weight), persistent=False)

    def forward(self, x):
        return x * self.kernel * self.window + self.offsets.float() + self.detached
