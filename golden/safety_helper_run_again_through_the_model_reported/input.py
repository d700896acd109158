"""A recurrent model's hidden state, bound by a helper that `__init__` calls and that the
training script calls again through the model (`model.init_hidden(batch)` before each
batch). Registered there, the helper would raise KeyError on a model saved whole
(`torch.save(model)`) before the rewrite: its state is a plain attribute, and
`register_buffer` refuses a name that already is one. It is reported, with the safe form.
A table the constructor binds itself, which nothing calls again, is still rewritten."""

import torch
import torch.nn as nn


class HierarchicalGRU(nn.Module):
    def __init__(self, hidden, batch):
        super().__init__()
        self.hidden = hidden
        self.rnn = nn.GRU(hidden, hidden, bidirectional=True)
        self.steps = torch.arange(4)
        self.init_hidden(batch)

    def init_hidden(self, batch):
        self.state = torch.zeros(2, batch, self.hidden)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out[..., self.steps]

    def step(self, x):
        out, self.state = self.rnn(x, self.state)
        return out


def train(model, batches):
    for batch in batches:
        model.init_hidden(batch.shape[1])
        model(batch).sum().backward()
