"""A row buffer hands its last row on as a clone (`self.current = self.next_row.clone()`):
the cloned slot holds a tensor once the method has run, as the slot it copies does, so it is
reported with that slot, not called a value the codemod cannot type."""

import torch
import torch.nn as nn


class RowPadder(nn.Module):
    def __init__(self):
        super().__init__()
        self.current = None
        self.next_row = None

    def advance(self, image: torch.Tensor):
        if self.next_row is not None:
            self.current = self.next_row.clone()
        self.next_row = image[:, :, -1:, :]

    def forward(self, x):
        if self.current is None:
            return x
        return torch.cat((self.current, x), -2)
