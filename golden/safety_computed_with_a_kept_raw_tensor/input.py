"""A matrix factorisation keeps its factors as tensors an optimizer of its own trains (BUF217
keeps them plain attributes) and its rating indices beside them. `fit` computes the factors
with the indices: as buffers, the indices would follow `model.to("cuda")` and the factors
would stay on the CPU, so `torch.index_select` would raise where it runs today. The indices
stay plain attributes too (BUF225). The item count, read only by itself, still becomes a
buffer."""

import torch
import torch.nn as nn


class Factorization(nn.Module):
    def __init__(self, user_ids, item_ids, n_users, n_items, n_latent):
        super().__init__()
        self.user_ids = user_ids
        self.item_ids = item_ids
        self.theta = torch.zeros(n_users, n_latent, requires_grad=True)
        self.items = torch.zeros(n_items, n_latent, requires_grad=True)
        self.optimizer = torch.optim.Adam([self.theta, self.items], lr=0.01)
        self.counts = torch.bincount(item_ids)

    def fit(self, ratings):
        theta = torch.index_select(self.theta, 0, self.user_ids)
        items = torch.index_select(self.items, 0, self.item_ids)
        return ((theta * items).sum(1) - ratings).pow(2).mean()

    def popularity(self):
        return self.counts.float() / self.counts.sum()


def build():
    users = torch.tensor([0, 1, 2, 1])
    items = torch.tensor([0, 0, 1, 2])
    return Factorization(users, items, 3, 3, 4)
