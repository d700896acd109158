"""Two dropout masks declared together (`self.a = self.b = None`) and filled by a method with
tensors in training and with lists of floats in evaluation: one slot statement binds both
names, and a buffer would refuse the lists, so neither becomes an empty buffer slot. Both
are reported; the file is rewritten nowhere and reports no error."""

import torch
import torch.nn as nn


class RecurrentDropoutCell(nn.Module):
    def __init__(self, size, dropout=0.2):
        super().__init__()
        self.size = size
        self.dropout = dropout
        self.weight = nn.Parameter(torch.zeros(4 * size, size))
        self._input_mask = self._hidden_mask = None

    def set_masks(self, batch):
        if self.training:
            self._input_mask = torch.bernoulli(self.weight.new_full((4, batch, self.size), 1 - self.dropout))
            self._hidden_mask = torch.bernoulli(self.weight.new_full((4, batch, self.size), 1 - self.dropout))
        else:
            self._input_mask = self._hidden_mask = [1.0 - self.dropout] * 4

    def forward(self, x):
        self.set_masks(x.shape[0])
        return x @ self.weight[: self.size]
