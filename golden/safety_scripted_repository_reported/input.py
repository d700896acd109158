"""The repository compiles its model with torch.jit.script (repo/export.py): a scripted module's
state_dict saves even a non-persistent buffer, so the index buffer is reported, not made; the
trained gain still becomes a parameter, whose new key the finding already names."""

import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.index = torch.arange(n)
        self.gain = torch.ones(n, requires_grad=True)

    def forward(self, x):
        return x.index_select(-1, self.index) * self.gain
