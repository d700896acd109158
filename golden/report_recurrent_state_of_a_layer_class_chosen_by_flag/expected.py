"""A memory picks its recurrent layer's class by a flag and keeps the layer's last state:
an LSTM's state is a tuple `(h, c)`, a GRU's a tensor, so which one the slot holds depends
on the configuration. The state is reported, never registered as one buffer; the same layer
built directly from the flag is reported the same way."""

import torch.nn as nn


class Memory(nn.Module):
    def __init__(self, input_size, kind="lstm", hidden_size=64):
        super().__init__()
        rnn_cls = nn.GRU if kind.lower() == "gru" else nn.LSTM
        self.rnn = rnn_cls(input_size=input_size, hidden_size=hidden_size)
        self.hidden_states = None

    def forward(self, x):
        out, self.hidden_states = self.rnn(x.unsqueeze(0), self.hidden_states)
        return out

    def reset(self, dones):
        for hidden in self.hidden_states:
            hidden[..., dones, :] = 0.0


class ChosenMemory(nn.Module):
    def __init__(self, input_size, gru=False, hidden_size=64):
        super().__init__()
        self.rnn = nn.GRU(input_size, hidden_size) if gru else nn.LSTM(input_size, hidden_size)
        self.state = None

    def forward(self, x):
        out, self.state = self.rnn(x, self.state)
        return out
