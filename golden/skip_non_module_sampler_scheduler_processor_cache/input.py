"""Samplers, LR schedulers, logits processors and caches hold tensors but are not modules."""

import torch
from torch.optim.lr_scheduler import LRScheduler
from torch.utils.data import Sampler


class WeightedSampler(Sampler):
    def __init__(self, weights=(0.1, 0.9), num_samples=4):
        self.weights = torch.tensor(weights, dtype=torch.double)
        self.num_samples = num_samples

    def __iter__(self):
        return iter(torch.multinomial(self.weights, self.num_samples, True).tolist())

    def __len__(self):
        return self.num_samples


class WarmupScheduler(LRScheduler):
    def __init__(self, optimizer, warmup=4):
        self.factors = torch.linspace(0.1, 1.0, warmup)
        super().__init__(optimizer)

    def get_lr(self):
        step = min(self.last_epoch, len(self.factors) - 1)
        return [base * float(self.factors[step]) for base in self.base_lrs]


class LogitsProcessor:
    def __call__(self, input_ids, scores):
        raise NotImplementedError


class TemperatureLogitsWarper(LogitsProcessor):
    def __init__(self, temperature=0.7):
        self.temperature = torch.tensor(temperature)

    def __call__(self, input_ids, scores):
        return scores / self.temperature


class KVCache:
    def __init__(self, batch=1, heads=2, max_len=8, dim=4):
        self.k = torch.zeros(batch, heads, max_len, dim)
        self.v = torch.zeros(batch, heads, max_len, dim)
        self.length = 0

    def update(self, k, v):
        n = k.size(2)
        self.k[:, :, self.length : self.length + n] = k
        self.v[:, :, self.length : self.length + n] = v
        self.length += n
        return self.k[:, :, : self.length], self.v[:, :, : self.length]
