"""Accumulators filled, in a method, with what only a tensor's methods give (`grad.clone()`,
`grad.detach()`) of values nothing types (the gradients `torch.autograd.grad` returns, a
callable's output): reported, as they may be tensors, never rewritten."""

import torch
from torch import nn


class GradientEstimator(nn.Module):
    def __init__(self, potential, observable=None):
        super().__init__()
        self.potential = potential
        self.observable = observable
        self._reset()

    def _reset(self):
        self._n = 0
        self._sum_dU = {}
        self._sum_dO = {}
        self._sum_O = None

    def accumulate(self, samples):
        values = self.observable(samples)
        energy = self.potential(samples)
        if self._sum_O is None:
            self._sum_O = values.expand(len(samples)).sum()
        for name, param in self.potential.named_parameters():
            grad_U = torch.autograd.grad(energy.sum(), param, retain_graph=True)[0]
            if name not in self._sum_dU:
                self._sum_dU[name] = grad_U.clone()
            else:
                self._sum_dU[name] = self._sum_dU[name] + grad_U
            grad_O = torch.autograd.grad(values.sum(), param, retain_graph=True, allow_unused=True)[0]
            if grad_O is not None:
                self._sum_dO[name] = grad_O.detach()
        self._n += len(samples)

    def forward(self, samples):
        return self.potential(samples)
