import torch.nn as nn


class Board(nn.Module):
    """The kept layout is only printed: nothing shows it is a tensor."""

    def __init__(self, dim):
        super().__init__()
        self.head = nn.Linear(dim, dim)
        self.layout = None

    def set_layout(self, layout):
        self.layout = layout.transpose(1, 0)

    def describe(self):
        print(self.layout)

    def forward(self, x):
        return self.head(x)
