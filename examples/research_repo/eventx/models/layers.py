import torch
from torch import nn

from eventx.utils import causal_mask


class Block(nn.Module):
    """Base block of the repository; subclasses live in other files."""

    def __init__(self, hidden_size):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)


class AdaptiveAdditionPredictor(Block):
    def __init__(self, hidden_size, dropout_rate=0.0):
        super().__init__(hidden_size)
        self.v = nn.Linear(hidden_size * 4, 1)
        self.hidden = nn.Linear(hidden_size * 4, hidden_size * 4)
        self.dropout = nn.Dropout(dropout_rate)
        # a learned temperature, created the old way
        self.temperature = torch.ones(1, requires_grad=True)

    def forward(self, query, context, mask):
        context_ = context.unsqueeze(1).expand(context.size(0), query.size(0), context.size(1), context.size(2))
        query_ = query.unsqueeze(0).unsqueeze(2).expand_as(context_)
        scores = self.v(torch.tanh(self.hidden(torch.cat([query_, context_, torch.abs(query_ - context_), query_ * context_], dim=-1))))
        scores = self.dropout(scores / self.temperature)
        scores = scores.squeeze(-1).masked_fill(mask.unsqueeze(1) == 0, -1e9)
        return scores.max(dim=-1)[0]


class CausalSelfAttention(Block):
    def __init__(self, hidden_size=16, max_len=64):
        super().__init__(hidden_size)
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.mask = causal_mask(max_len)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
        t = x.size(1)
        scores = scores.masked_fill(~self.mask[:t, :t], float("-inf"))
        return scores.softmax(-1) @ v
