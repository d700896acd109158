"""A recurrent encoder keeps its GRU state between steps and a training loop cuts the graph
with `detach_hidden_states()`: `self.h = self.h.detach().clone()` binds what the slot already
held, a tensor (None would raise in either version), so the slot is an empty buffer slot, not
a report about a value the codemod cannot type."""

import torch
import torch.nn as nn


class RecurrentBackbone(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.rnn = nn.GRU(input_size=dim, hidden_size=hidden, batch_first=True)
        self.register_buffer("hidden_states", None, persistent=False)

    def forward(self, x):
        out, self.hidden_states = self.rnn(x[:, None, :], self.hidden_states)
        return out.squeeze(1)

    def detach_hidden_states(self):
        self.hidden_states = self.hidden_states.detach().clone()
