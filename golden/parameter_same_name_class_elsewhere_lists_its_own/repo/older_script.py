import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.attn1 = nn.Sequential(nn.Linear(width, 1), nn.Softmax(dim=1))
        self.attn2 = nn.Sequential(nn.Linear(width, 1), nn.Softmax(dim=1))

    def forward(self, x):
        out = x * self.attn1(x) * self.attn2(x)
        return (out, self.attn1, self.attn2)
