"""Data passed in is rebuilt by every construction: non-persistent buffers.  torch.load(...)
returns whatever was saved, so its arm stays a plain attribute and only the other arm is
rewritten (the two arms never both run)."""

import numpy as np
import torch
import torch.nn as nn


class ClassWeights(nn.Module):
    def __init__(self, counts=(10, 5, 1), prior=None, stats_path=None):
        super().__init__()
        self.register_buffer("counts", torch.tensor(counts), persistent=False)
        self.register_buffer(
            "prior",
            torch.from_numpy(
                np.asarray(prior if prior is not None else [0.5, 0.3, 0.2])
            ),
            persistent=False,
        )
        if stats_path is not None:
            self.stats = torch.load(stats_path)
        else:
            self.stats = torch.zeros(3)

    def forward(self, logits):
        weights = self.prior / self.counts.float()
        return logits * weights + self.stats
