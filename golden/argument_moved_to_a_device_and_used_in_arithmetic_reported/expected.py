import torch
from torch import nn


class History(nn.Module):
    """Lengths handed in by a data pipeline nothing in the repository types; moved to the
    device and used only in arithmetic: a number has no .to(), a module does no arithmetic."""

    def __init__(self, lengths, device, dim=8):
        super().__init__()
        self.lengths = lengths.to(device)
        self.embed = nn.Embedding(100, dim)

    def last_positions(self, ids):
        return self.lengths[ids] - 1

    def forward(self, ids, tokens):
        return self.embed(tokens)[torch.arange(len(ids)), self.last_positions(ids)]


def build(pipeline, device):
    return History(pipeline["lengths"], device)
