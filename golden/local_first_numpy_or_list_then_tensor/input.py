"""An attribute first bound to a numpy array or a list and converted to a tensor later:
register_buffer on it raises KeyError (the plain attribute exists), so the value is built
in a local and registered once.  Where a method of self runs in between (it may read the
attribute), it is left alone with the reason."""

import numpy as np
import torch
import torch.nn as nn


class Anchors(nn.Module):
    def __init__(self, sizes=(8, 16, 32)):
        super().__init__()
        self.anchors = np.array(sizes, dtype=np.float32)
        self.anchors = self.anchors / self.anchors.max()
        self.anchors = torch.from_numpy(self.anchors)
        self.offsets = []
        for size in sizes:
            self.offsets.append(torch.full((2,), size / 2))
        self.offsets = torch.stack(self.offsets)
        self.table = np.eye(3)
        self.check()
        self.table = torch.tensor(self.table)

    def check(self):
        assert self.table.shape == (3, 3)

    def forward(self, x):
        return x * self.anchors.sum() + self.offsets.sum() + self.table.sum()
