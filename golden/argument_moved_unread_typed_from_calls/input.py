import torch.nn as nn


class Detector(nn.Module):
    """A table kept moved and never read again: the repository's call (repo/run.py) passes a
    tensor, so it is a raw tensor attribute all the same."""

    def __init__(self, table, device):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.table = table.cuda(device)

    def forward(self, x):
        return self.fc(x)
