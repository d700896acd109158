"""State updated from its own previous value outside __init__ (running statistics, moving
averages, counters) must travel with a checkpoint: persistent buffers."""

import torch
import torch.nn as nn


class EMAQuantizer(nn.Module):
    def __init__(self, codes=4, dim=2, decay=0.9):
        super().__init__()
        self.decay = decay
        self.register_buffer("cluster_size", torch.zeros(codes), persistent=False)
        self.register_buffer("embed_avg", torch.zeros(codes, dim), persistent=False)
        self.register_buffer("average", torch.zeros(dim), persistent=False)
        self.register_buffer("steps", torch.tensor(0), persistent=False)

    @torch.no_grad()
    def update(self, x, counts):
        self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
        self.embed_avg.copy_(self.embed_avg * self.decay + x.mean(0))
        self.average = self.average * self.decay + (1 - self.decay) * x.mean(0)
        self.steps += 1

    def forward(self, x):
        return x - self.average + self.embed_avg.sum(0) * 0 + self.cluster_size.sum() * 0
