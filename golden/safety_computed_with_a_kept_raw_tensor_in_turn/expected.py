"""`table` stays a plain attribute (BUF218: its values reach `.numpy()`). `keys` indexes it,
so it waits for it (BUF225); `offsets` is added to `keys`, which now stays plain, so it waits
in turn. `scale` meets `table` only after `table` is moved to its device
(`self.table.to(self.scale.device)`): both are on one device there, and it becomes a buffer."""

import torch
import torch.nn as nn


class Lookup(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = torch.randn(n, 3)
        self.keys = torch.arange(n)
        self.offsets = torch.ones(n, dtype=torch.long)
        self.register_buffer("scale", torch.full((3,), 2.0), persistent=False)

    def forward(self, x):
        return x * self.scale

    def rows(self):
        return self.table[self.keys]

    def shifted(self):
        return self.keys + self.offsets

    def scaled(self):
        return self.table.to(self.scale.device).mean(0) * self.scale

    def export(self):
        return self.table.numpy()


def build():
    return Lookup(4)
