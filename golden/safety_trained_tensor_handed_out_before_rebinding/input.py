"""A trained tensor handed to an optimizer and then bound again (`.to(device)`) is left
alone: as nn.Parameter each binding would be a new leaf, and the optimizer would keep the
first one, which forward never reads.  Bound once, it becomes a parameter."""

import torch
import torch.nn as nn


class Temperature(nn.Module):
    def __init__(self, device="cpu", lr=0.1):
        super().__init__()
        self.log_alpha = torch.tensor([0.0], requires_grad=True)
        self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=lr)
        self.log_alpha = self.log_alpha.to(device)
        self.log_beta = torch.zeros(1, requires_grad=True)

    def forward(self, x):
        return x * self.log_alpha.exp() + self.log_beta
