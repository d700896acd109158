"""A list of the module's own registered parameters (`[self.weight_mean, self.bias_mean]`,
kept for a KL term) holds the parameters themselves, which `.to()` moves in place and
`state_dict()` saves under their own names: nothing to say.  Parameters set by name from a
loop over a tuple of them (`setattr(self, name, param)`) register themselves.  A list that
also holds a plain tensor is still reported (BUF301)."""

import torch
import torch.nn as nn


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight_mean = nn.Parameter(torch.zeros(n_out, n_in))
        self.bias_mean = nn.Parameter(torch.zeros(n_out))
        self.means = [self.weight_mean, self.bias_mean]
        self.prior = [self.weight_mean, torch.ones(n_out)]

    def forward(self, x):
        return x @ self.means[0].t() + self.means[1] + self.prior[1]


class BayesRNN(nn.Module):
    def __init__(self, size):
        super().__init__()
        w_ih = nn.Parameter(torch.zeros(size, size))
        w_hh = nn.Parameter(torch.zeros(size, size))
        for name, param in zip(["weight_ih", "weight_hh"], (w_ih, w_hh)):
            setattr(self, name, param)

    def forward(self, x):
        return x @ self.weight_ih + x @ self.weight_hh
