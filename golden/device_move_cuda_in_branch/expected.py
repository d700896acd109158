"""`.cuda()` and `.to("cuda")` in a branch: dropped, both branches become buffers."""

import torch
import torch.nn as nn


class MaskCache(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        mask = torch.tril(torch.ones(size, size))
        if torch.cuda.is_available():
            self.register_buffer("mask", mask.cuda(), persistent=False)
            self.register_buffer("eye", torch.eye(size).to("cuda"), persistent=False)
        else:
            self.register_buffer("mask", mask, persistent=False)
            self.register_buffer("eye", torch.eye(size), persistent=False)

    def forward(self, scores):
        return scores * self.mask + self.eye
