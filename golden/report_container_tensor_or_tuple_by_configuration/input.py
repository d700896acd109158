"""A recurrent state that is an LSTM's `(h, c)` tuple or a GRU's `h`, by configuration (a
helper returning either), and a constructor value that is a tuple or a tensor by an
argument: tensors either way, never one buffer. Both are reported as the sequences of
tensors they may be, with the advice for state that forward replaces."""

import torch
import torch.nn as nn


class Recurrent(nn.Module):
    def __init__(self, cell, hidden):
        super().__init__()
        self.cell = cell
        self.hidden_size = hidden
        self.rnn = nn.LSTM(hidden, hidden) if cell == "lstm" else nn.GRU(hidden, hidden)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        h = torch.zeros(1, 16, self.hidden_size)
        if self.cell == "lstm":
            return (h, torch.zeros(1, 16, self.hidden_size))
        return h

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        return out


class Initial(nn.Module):
    def __init__(self, lstm, size=3):
        super().__init__()
        h = torch.zeros(size)
        self.state = (h, h.clone()) if lstm else h
        self.proj = nn.Linear(size, size)

    def forward(self, x):
        return self.proj(x)
