"""A layer cast as it is built (`nn.Linear(...).double()` is the layer itself) and called on a
prototype tensor; and a list filled by a helper method whose result is a tensor only because
the call hands it one (`self.get_tau(self.class_sims[:, i])`)."""

import torch
from torch import nn


class ContrastiveRanking(nn.Module):
    def __init__(self, prototypes=None, n_fea=4, n_hid=3, n_classes=5):
        super().__init__()
        if prototypes is None:
            prototypes = torch.ones(2, n_fea, dtype=torch.float64)
        self.min_tau = 0.1
        self.max_tau = 0.6
        self.register_buffer(
            "class_sims",
            torch.linspace(0, 1, n_classes * 2).view(n_classes, 2),
            persistent=False,
        )
        self.dynamic_taus = []
        for i in range(self.class_sims.shape[1]):
            self.dynamic_taus.append(self.get_dynamic_tau(self.class_sims[:, i]))
        self.linear_layer = nn.Linear(n_fea, n_hid).double()
        self.register_buffer("l_proto", self.linear_layer(prototypes), persistent=False)

    def get_dynamic_tau(self, similarities):
        dissimilarities = 1 - similarities
        return self.min_tau + dissimilarities * (self.max_tau - self.min_tau)

    def forward(self, anchor):
        logits = anchor.to(self.l_proto.dtype) @ self.l_proto.t()
        return logits / self.dynamic_taus[0][: logits.shape[1]].sum()
