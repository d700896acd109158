"""A legacy CUDA typed constructor in one branch and the CPU one in the other."""

import torch
import torch.nn as nn


class TokenFilter(nn.Module):
    def __init__(self):
        super().__init__()
        if torch.cuda.is_available():
            self.register_buffer(
                "banned_ids", torch.cuda.LongTensor([0, 2]), persistent=False
            )
        else:
            self.register_buffer(
                "banned_ids", torch.LongTensor([0, 2]), persistent=False
            )

    def forward(self, logits):
        return logits.index_fill(-1, self.banned_ids, float("-inf"))
