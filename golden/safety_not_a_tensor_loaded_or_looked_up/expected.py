"""torch.load(...) returns whatever was saved, and values looked up by string keys or with
dict.get are not tensors unless proven: left alone.  A tensor built from them is one."""

import os
import tempfile

import torch
import torch.nn as nn


def _default_stats():
    path = os.path.join(tempfile.gettempdir(), "codemod_golden_stats.pt")
    torch.save({"mean": torch.zeros(3), "meta": {"version": 2}}, path)
    return path


class Normalizer(nn.Module):
    def __init__(self, stats_path=None, config=None):
        super().__init__()
        config = config or {"scale": 2.0}
        stats = torch.load(stats_path or _default_stats())
        self.stats = stats
        self.meta = stats["meta"]
        self.mean = stats.get("mean")
        self.scale = config["scale"]
        self.register_buffer(
            "shift", torch.as_tensor(stats["mean"]) + 1, persistent=False
        )

    def forward(self, x):
        return (x - self.mean) * self.scale + self.shift
