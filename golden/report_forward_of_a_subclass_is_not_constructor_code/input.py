import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)

    def forward(self, x):
        return self.stem(x)


class TokenModel(Backbone):
    """Overrides the base's forward, which the base constructor never calls."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        self.tokens = torch.cat([x, self.stem(x)], dim=0)
        return self.head(self.tokens)


class SizedBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.out_features = self.forward(torch.zeros(1, 4)).shape[-1]  # a dummy pass

    def forward(self, x):
        return self.stem(x)


class SizedTokenModel(SizedBackbone):
    """The base constructor runs forward: this override runs before __init__'s body."""

    def forward(self, x):
        self.tokens = torch.cat([x, self.stem(x)], dim=0)
        return self.tokens
