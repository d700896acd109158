"""None in __init__ and an LSTM's (h, c) tuple later: no buffer holds a tuple, so it is
reported (BUF307) with advice for a tuple, not rewritten; a GRU's single tensor state is
the lazy slot it always was (BUF107)."""

import torch.nn as nn


class LSTMPlain(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.rnn = nn.LSTM(size, size, batch_first=True)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        return out


class GRUPlain(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.rnn = nn.GRU(size, size, batch_first=True)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        return out
