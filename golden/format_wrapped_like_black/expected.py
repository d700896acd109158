"""Rewritten statements that no longer fit are wrapped as black wraps them."""

import torch
import torch.nn as nn


class Rotary(nn.Module):
    def __init__(self, dim=8, base=10000.0, max_len=16, use_cache=True):
        super().__init__()
        self.register_buffer(
            "inv_freq",
            1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)),
            persistent=False,
        )
        self.register_buffer(
            "position_ids", torch.arange(max_len).expand((1, -1)), persistent=False
        )  # (1, max_len)
        self.register_buffer(
            "causal_mask_for_the_attention",
            torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)),
            persistent=False,
        )
        self.scale_of_the_output = nn.Parameter(torch.ones(dim))
        self.register_buffer(
            "cache",
            (
                torch.zeros(max_len, dim)
                if use_cache
                else torch.empty(0, dim, dtype=torch.float32)
            ),
            persistent=False,
        )
        self.register_buffer(
            "offsets",
            torch.tensor(
                [
                    0.0,
                    0.5,
                ]
            ),
            persistent=False,
        )

    def forward(self, x):
        return x * self.inv_freq.sum() + self.scale_of_the_output.sum()
