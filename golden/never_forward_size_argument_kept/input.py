"""forward's `batch_size` argument is a count, not a batch tensor: kept on the module (a
number in __init__, the caller's number in forward), it is no placeholder for a tensor."""

import torch
import torch.nn as nn


class HighwayLSTM(nn.Module):
    def __init__(self, in_dim=3, hidden_dim=4):
        super().__init__()
        self.batch_size = 1
        self.hidden_dim = hidden_dim
        self.bilstm = nn.LSTM(in_dim, hidden_dim, batch_first=True, bidirectional=True)

    def _init_hidden(self):
        return (torch.zeros(2, self.batch_size, self.hidden_dim),
                torch.zeros(2, self.batch_size, self.hidden_dim))

    def forward(self, x, batch_size):
        self.batch_size = batch_size
        output, _ = self.bilstm(x, self._init_hidden())
        return output
