"""A number set in __init__ that an augmented assignment with a tensor turns into a tensor
(`self.loss_total += self.crit(out, y)`) is reported (BUF307); a counter that only ever
adds numbers (`self.steps += 1`) is not."""

import torch.nn as nn


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.crit = nn.MSELoss()
        self.loss_total = 0
        self.steps = 0

    def train_step(self, x, y):
        self.loss_total += self.crit(self.net(x), y)
        self.steps += 1
        return self.loss_total


class ErrorMeter(nn.Module):
    def __init__(self):
        super().__init__()
        self.error = 0.0

    def forward(self, pred, target):
        self.error += (pred - target).abs().mean()
        return self.error
