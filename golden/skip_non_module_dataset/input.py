"""A Dataset holding its data as tensors is not a module: never rewritten."""

import torch
from torch.utils.data import Dataset


class ToyDataset(Dataset):
    def __init__(self, n=8):
        self.x = torch.randn(n, 4)
        self.y = torch.arange(n) % 2

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
