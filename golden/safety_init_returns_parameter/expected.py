"""nn.init.*_ functions return the tensor they fill: an initialised nn.Parameter is still a
parameter and is never made a buffer; an initialised plain tensor is a raw tensor."""

import torch
import torch.nn as nn


class Projection(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.weight = nn.init.xavier_uniform_(nn.Parameter(torch.empty(features, features)))
        self.bias = nn.init.zeros_(nn.Parameter(torch.empty(features)))
        self.register_buffer(
            "basis",
            nn.init.orthogonal_(torch.empty(features, features)),
            persistent=False,
        )

    def forward(self, x):
        return x @ (self.weight @ self.basis) + self.bias
