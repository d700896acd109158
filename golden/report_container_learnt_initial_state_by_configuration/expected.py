"""A learnt initial state made by a helper of the base class: a pair of nn.Parameters for an
LSTM, the first alone otherwise. A parameter assigned to self is registered, but a tuple of
them is not: their optimizer never sees them, `.to()` leaves them behind and `state_dict()`
lacks them. Reported as the tensor or tuple it may be, never rewritten."""

import torch
import torch.nn as nn


class Sequence(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size

    def init_hidden(self):
        return (
            nn.Parameter(torch.zeros(1, 1, self.hidden_size, requires_grad=True)),
            nn.Parameter(torch.zeros(1, 1, self.hidden_size, requires_grad=True)),
        )


class Recurrent(Sequence):
    def __init__(self, hidden_size, lstm=True):
        super().__init__(hidden_size)
        self.lstm = lstm
        self.rnn = nn.LSTM(hidden_size, hidden_size) if lstm else nn.GRU(hidden_size, hidden_size)
        self.initial = self.learnt_initial_state()
        self.head = nn.Linear(hidden_size, 1)

    def learnt_initial_state(self):
        hidden = self.init_hidden()
        if self.lstm:
            return hidden
        return hidden[0]

    def forward(self, x):
        out, _ = self.rnn(x, self.initial)
        return self.head(out)
