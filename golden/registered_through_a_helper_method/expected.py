"""A method that hands its name argument to register_buffer registers the attribute:
assigning a tensor to it later lands in that buffer, so nothing is reported."""

import torch
import torch.nn as nn


class Stateful(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self._defaults = {}
        self.register_state("running_keys", torch.zeros((0, d)))
        self.register_state("running_seq", torch.zeros((1,)).long())

    def register_state(self, name, default):
        self._defaults[name] = None if default is None else default.clone()
        self.register_buffer(name, default)

    def forward(self, keys):
        self.running_keys = torch.cat([self.running_keys, keys], 0)
        self.running_seq = self.running_seq + 1
        return self.running_keys.sum(0)
