"""A subclass of torch.jit.ScriptModule refuses non-persistent buffers: its raw tensor is
reported, not rewritten (a persistent buffer would add a checkpoint key); the plain
nn.Module beside it is rewritten as usual."""

import torch
import torch.nn as nn


class ScriptedShift(torch.jit.ScriptModule):
    def __init__(self, n):
        super().__init__()
        self.offsets = torch.arange(n)

    @torch.jit.script_method
    def forward(self, x):
        return x + self.offsets


class Shift(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.offsets = torch.arange(n)

    def forward(self, x):
        return x + self.offsets
