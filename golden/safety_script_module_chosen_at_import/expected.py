"""A base chosen at import time (torch.jit.ScriptModule when scripting is switched on,
nn.Module otherwise) makes a module either way; one of its bindings refuses non-persistent
buffers, so the raw tensor is reported, not rewritten."""

import os

import torch
import torch.nn as nn

ScriptBase = torch.jit.ScriptModule if os.environ.get("USE_JIT") else nn.Module


class Shift(ScriptBase):
    def __init__(self, n):
        super().__init__()
        self.offsets = torch.arange(n)

    def forward(self, x):
        return x + self.offsets
