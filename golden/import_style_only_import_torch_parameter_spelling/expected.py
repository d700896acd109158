"""Only `import torch`: the base is torch.nn.Module and a parameter is spelled torch.nn.Parameter."""

import torch


class Gate(torch.nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.proj = torch.nn.Linear(features, features)
        self.gate = torch.nn.Parameter(torch.zeros(features))
        self.register_buffer(
            "offsets", torch.linspace(-1.0, 1.0, features), persistent=False
        )

    def forward(self, x):
        return self.proj(x + self.offsets) * torch.sigmoid(self.gate)
