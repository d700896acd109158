import torch
import torch.nn as nn

from sorting.networks import get_sorting_network


class SortNet(nn.Module):
    """A helper of another file returns what a function defined inside it returns: a list of
    lists of tensors, which `.to()` does not move; reported, with the advice for containers."""

    def __init__(self, size=4, device="cpu"):
        super().__init__()
        self.size = size
        self.sorting_network = get_sorting_network(size, device)

    def forward(self, x):
        for layer in self.sorting_network:
            x = x @ layer[0]
        return x
