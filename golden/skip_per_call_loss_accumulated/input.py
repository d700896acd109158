"""A training method that starts a loss at 0 and adds a criterion's outputs to it: a tensor
from the first step on, kept on self between calls; reported, never rewritten.  A count
that adds numbers stays a number."""

import torch.nn as nn


class Seq2Seq(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.decoder = nn.Linear(n, n)
        self.criterion = nn.NLLLoss()

    def trainer(self, x, targets):
        self.loss = 0
        self.steps = 0
        for target in targets:
            self.loss += self.criterion(self.decoder(x), target)
            self.steps += 1
        self.loss.backward()
        return self.loss.item() / self.steps
