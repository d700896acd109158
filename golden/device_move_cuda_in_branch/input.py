"""`.cuda()` and `.to("cuda")` in a branch: dropped, both branches become buffers."""

import torch
import torch.nn as nn


class MaskCache(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        mask = torch.tril(torch.ones(size, size))
        if torch.cuda.is_available():
            self.mask = mask.cuda()
            self.eye = torch.eye(size).to("cuda")
        else:
            self.mask = mask
            self.eye = torch.eye(size)

    def forward(self, scores):
        return scores * self.mask + self.eye
