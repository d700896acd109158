"""Negative samples drawn from a weight table, then handed to an embedding whose method
builds `torch.LongTensor(data)` (repo/embedding.py): that constructor takes only CPU data.
Kept as a plain attribute, the table stays on the CPU under sgns.cuda() and the draws with
it; as a buffer the draws would be CUDA tensors and training would raise (BUF218)."""

import torch
import torch.nn as nn


class SGNS(nn.Module):
    def __init__(self, embedding, n_negs=5, weights=None):
        super().__init__()
        self.embedding = embedding
        self.n_negs = n_negs
        self.weights = None
        if weights is not None:
            self.weights = torch.FloatTensor(weights)

    def forward(self, iword):
        draws = torch.multinomial(self.weights, iword.size(0) * self.n_negs, replacement=True)
        nwords = draws.view(iword.size(0), -1)
        return self.embedding.forward_o(nwords).sum()


class Uniform(nn.Module):
    """The same embedding handed draws that do not come from the table: rewritten."""

    def __init__(self, embedding, n=6):
        super().__init__()
        self.embedding = embedding
        self.register_buffer("scale", torch.linspace(0.5, 1.5, n), persistent=False)

    def forward(self, iword):
        draws = torch.randint(0, 10, (iword.size(0), 3))
        return self.embedding.forward_o(draws).sum() * self.scale.sum()
