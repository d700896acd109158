import torch.nn as nn


class Probe(nn.Module):
    """A hook returned by a factory keeps the last output on self: a per-call value, reported."""

    def __init__(self, width=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, width), nn.ReLU())
        self.body.register_forward_hook(self._make_hook())

    def _make_hook(self):
        def keep(module, inputs, output):
            self.features = output

        return keep

    def forward(self, x):
        return self.body(x).sum(-1)
