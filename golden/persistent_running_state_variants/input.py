"""State updated from its own previous value outside __init__ (running statistics, moving
averages, counters) must travel with a checkpoint: persistent buffers."""

import torch
import torch.nn as nn


class EMAQuantizer(nn.Module):
    def __init__(self, codes=4, dim=2, decay=0.9):
        super().__init__()
        self.decay = decay
        self.cluster_size = torch.zeros(codes)
        self.embed_avg = torch.zeros(codes, dim)
        self.average = torch.zeros(dim)
        self.steps = torch.tensor(0)

    @torch.no_grad()
    def update(self, x, counts):
        self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
        self.embed_avg.copy_(self.embed_avg * self.decay + x.mean(0))
        self.average = self.average * self.decay + (1 - self.decay) * x.mean(0)
        self.steps += 1

    def forward(self, x):
        return x - self.average + self.embed_avg.sum(0) * 0 + self.cluster_size.sum() * 0
