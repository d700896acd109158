"""A recurrent encoder keeps its last hidden state between calls only when asked
(`self.h_last = h_last if self.keep_state else None`): a tensor or None, both of which an empty
buffer slot holds. Forward reads the slot before it binds it, so it is state, not a per-call
value: registered empty, it moves and casts with the model."""

import torch
import torch.nn as nn


class SentenceEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.h_last = None  # the state carried to the next batch
        self.keep_state = False

    def forward(self, x):
        if self.keep_state and self.h_last is not None and self.h_last.size(1) == x.size(0):
            out, h_last = self.gru(x, self.h_last)
        else:
            out, h_last = self.gru(x)
        self.h_last = h_last if self.keep_state else None
        return out
