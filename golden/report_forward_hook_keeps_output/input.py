import torch
from torch import nn


class FeatureTap(nn.Module):
    """Keeps the backbone's features through forward hooks."""

    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.features = None
        self.pooled = 0

        def keep(module, inputs, output):
            self.features = output

        def keep_pooled(module, inputs, output):
            self.pooled = output.mean(0)

        def count(module, inputs, output):
            self.calls = len(inputs)

        self.backbone.register_forward_hook(keep)
        self.backbone.register_forward_hook(keep_pooled)
        self.backbone.register_forward_hook(count)

    def forward(self, x):
        self.backbone(x)
        return self.features


class Recorder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

        def remember():
            self.last = torch.zeros(2)

        self.remember = remember

    def forward(self, x):
        self.remember()
        return self.lin(x)
