"""Attention weights made with `Variable(..., requires_grad=True)` in a script's attention
class: trained tensors, which the optimizer of the script (`optim.Adam(attention.parameters())`)
never sees. Another script of the repository defines its own class named `Attention`, whose
forward returns its own submodules in a tuple (`return out, self.attn1, self.attn2`): that is
not this class's tensors handed to an optimizer of their own, so each becomes nn.Parameter."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class Attention(nn.Module):
    def __init__(self, object_dim=8, feature_dim=16):
        super().__init__()
        self.attn1 = nn.Parameter(torch.rand(object_dim))
        self.attn2 = nn.Parameter(torch.rand(feature_dim))
        self.proj = nn.Linear(object_dim, feature_dim)

    def forward(self, objects):
        weights = torch.softmax(objects @ self.attn1, dim=-1)
        return self.proj(objects * weights.unsqueeze(-1)) * self.attn2
