import torch.nn as nn


class Demapper(nn.Module):
    """`const.to(device=device)` keeps a tensor or a module; the repository's call (repo/train.py)
    passes a tensor, which a helper that forward calls combines with its input."""

    def __init__(self, n, const, device):
        super().__init__()
        self.theta = nn.Linear(n, n)
        self.register_buffer("const", const, persistent=False)

    def soft_symbols(self, logits):
        probs = self.theta(logits).softmax(dim=-1)
        return (probs * self.const).sum(dim=-1)

    def forward(self, logits):
        return self.soft_symbols(logits)
