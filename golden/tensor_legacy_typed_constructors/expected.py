"""Legacy typed constructors: FloatTensor, LongTensor and torch.Tensor."""

import torch
import torch.nn as nn


class LegacyMixer(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.register_buffer(
            "mix", torch.FloatTensor([0.2, 0.3, 0.5]), persistent=False
        )
        self.register_buffer("counts", torch.LongTensor(n).zero_(), persistent=False)
        self.register_buffer("sign", torch.Tensor([1.0, -1.0, 1.0]), persistent=False)
        self.register_buffer("workspace", torch.Tensor(n, n), persistent=False)

    def forward(self, x):
        return x * self.mix * self.sign
