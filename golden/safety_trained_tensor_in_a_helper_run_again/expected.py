"""A trained tensor bound by a helper that __init__ calls and another method calls again
(a recommender that starts a new user's factors over): the helper's statement is the
constructor's own binding, not a rebinding to something else, so the report names the
helper run again (BUF220), not a rebinding to a non-Parameter (BUF211)."""

import torch
import torch.nn as nn


class NewUser(nn.Module):
    def __init__(self, n_latent=4):
        super().__init__()
        self.n_latent = n_latent
        self.items = nn.Parameter(torch.randn(10, n_latent))
        self.start()

    def start(self):
        self.theta = torch.zeros(1, self.n_latent, requires_grad=True)

    def add_ratings(self, ratings):
        self.start()
        return ratings

    def forward(self, ids):
        return self.items[ids] @ self.theta.t()
