"""Dropout masks made by a helper that __init__ calls and forward calls again: registered
there, a model saved whole before the rewrite would raise KeyError on its next reset, so
they are reported; a helper only __init__ calls is constructor code and is rewritten."""

import torch
import torch.nn as nn


def create_mask(w, p):
    return w.new_empty(w.shape).bernoulli_(1 - p) / (1 - p)


class DropConnectLSTM(nn.Module):
    def __init__(self, n, p=0.5):
        super().__init__()
        self.p = p
        self.w_ih = nn.Parameter(torch.randn(4 * n, n))
        self.reset_mask()
        self.build_tables(n)

    def reset_mask(self):
        self.mask_ih = create_mask(self.w_ih, self.p)

    def build_tables(self, n):
        self.register_buffer("gates", torch.arange(4 * n) // n, persistent=False)

    def forward(self, x, resample=False):
        if resample:
            self.reset_mask()
        return x @ (self.w_ih * self.mask_ih).t() + self.gates[: x.shape[-1]].float().sum()
