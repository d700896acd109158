"""A tensor in one arm and a submodule under the same name in the other (a trained embedding
layer or fixed pretrained vectors) is reported (BUF204) as such: a buffer in one
configuration and a submodule in the other; a number in the other arm keeps the usual text."""

import torch
import torch.nn as nn


class ETM(nn.Module):
    def __init__(self, vocab_size=10, rho_size=4, train_embeddings=True, embeddings=None):
        super().__init__()
        if train_embeddings:
            self.rho = nn.Linear(rho_size, vocab_size, bias=False)
        else:
            self.rho = torch.as_tensor(embeddings).float()
        self.alphas = nn.Linear(rho_size, 3, bias=False)

    def forward(self, x):
        weight = self.rho.weight if isinstance(self.rho, nn.Linear) else self.rho
        return x @ self.alphas(weight).t()


class Scaled(nn.Module):
    def __init__(self, learned=False):
        super().__init__()
        if learned:
            self.scale = torch.ones(3)
        else:
            self.scale = 1.0

    def forward(self, x):
        return x * self.scale
