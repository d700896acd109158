"""Values derived from constructor arguments, config or files read in __init__ are rebuilt
by every construction: non-persistent buffers, so checkpoints saved before still load."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


def build_anchors(sizes):
    return np.stack([np.asarray(sizes, dtype=np.float32), np.asarray(sizes, dtype=np.float32) * 2], axis=1)


def _default_table():
    path = os.path.join(tempfile.gettempdir(), "codemod_golden_table.npy")
    np.save(path, np.arange(6, dtype=np.float32))
    return path


class GraphLayer(nn.Module):
    def __init__(self, adj=((0.0, 1.0), (1.0, 0.0)), sizes=(8, 16), table_path=None):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("adj", torch.tensor(adj), persistent=False)
        self.register_buffer(
            "anchors", torch.from_numpy(build_anchors(sizes)), persistent=False
        )
        self.register_buffer(
            "table",
            torch.from_numpy(np.load(table_path or _default_table())),
            persistent=False,
        )
        degree = self.adj.sum(1)
        self.register_buffer("norm", degree.pow(-0.5), persistent=False)

    def forward(self, x):
        return self.adj @ self.lin(x) * self.norm[:, None] + self.anchors.sum() + self.table.sum()
