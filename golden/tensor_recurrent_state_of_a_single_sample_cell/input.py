"""An LSTM cell's state for one sample at a time, kept between calls: forward flattens its
input to a batch of one (`x.view(1, -1)`). Validation's first made-up batch of two meets
"inconsistent input_size: got 16 expected 8", and is made again as a batch of one."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ProgramCore(nn.Module):
    def __init__(self, input_dim=8, hidden_dim=4):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.h_0 = torch.zeros(1, hidden_dim)
        self.c_0 = torch.zeros(1, hidden_dim)
        self.cell = nn.LSTMCell(input_size=input_dim, hidden_size=hidden_dim)

    def forward(self, x):
        h_x, c_x = self.cell(x.view(1, -1), (self.h_0, self.c_0))
        return F.relu(h_x)
