"""Tensor literals and arithmetic on them are deterministic constants."""

import torch
import torch.nn as nn


class Standardize(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer(
            "mean",
            torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255,
            persistent=False,
        )
        self.register_buffer(
            "inv_std",
            1.0 / (torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255),
            persistent=False,
        )
        self.register_buffer("eps", torch.tensor(1e-6), persistent=False)
        self.register_buffer(
            "flip", -torch.as_tensor([[0, 1], [1, 0]]), persistent=False
        )

    def forward(self, x):
        return (x - self.mean) * self.inv_std + self.eps
