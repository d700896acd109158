"""`requires_grad_(False)` is a method of nn.Module too: a backbone built by another package
and frozen this way is a submodule, never a tensor to register."""

import torch.nn as nn

try:
    from torchvision.models import resnet18  # a package the repository does not vendor
except ImportError:  # this copy imports without it
    resnet18 = None


class Classifier(nn.Module):
    def __init__(self, classes=2):
        super().__init__()
        self.backbone = resnet18().requires_grad_(False) if resnet18 is not None else nn.Identity()
        self.head = nn.LazyLinear(classes)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))
