"""A constructor that makes its tensors through a lambda it defines (`randn = lambda: ...`):
calls of the lambda are typed from its body. The pair of initial LSTM states is a tuple of
tensors (reported); the scale the other lambda makes is a tensor (rewritten)."""

import torch
import torch.nn as nn


class LSTMClassifier(nn.Module):
    def __init__(self, layers=1, batch_size=2, hidden_dim=4, device="cpu"):
        super().__init__()
        randn = lambda: torch.randn(2 * layers, batch_size, hidden_dim).to(device=device)
        self.init_hiddens = (randn(), randn())
        ones = lambda n: torch.ones(n)
        self.scale = ones(hidden_dim * 2)
        self.lstm = nn.LSTM(3, hidden_dim, bidirectional=True, num_layers=layers)

    def forward(self, x):
        out, _ = self.lstm(x, self.init_hiddens)
        return out * self.scale
