import torch
import torch.nn as nn


class NoisyLayer(nn.Module):
    """The generator state captured when the layer is built is restored before each draw, so
    every call draws the same noise: a CPU ByteTensor that torch.set_rng_state needs where it
    was made, whatever device the model moves to."""

    def __init__(self, size=4):
        super().__init__()
        self.size = size
        self.seed_state = torch.get_rng_state()
        self.lin = nn.Linear(size, size)

    def forward(self, x):
        torch.set_rng_state(self.seed_state)
        return self.lin(x) + torch.randn(self.size)
