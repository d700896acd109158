import torch
import torch.nn as nn


class BaseNet(nn.Module):
    """Declares the per-query outputs that every subclass fills."""

    def __init__(self):
        super().__init__()
        self.preds = None

    def get_preds(self):
        return self.preds


class HGNet(BaseNet):
    def __init__(self, dim=4):
        super().__init__()
        self.classifier = nn.Linear(dim, 1)

    def query(self, points):
        self.preds = torch.sigmoid(self.classifier(points))


class RegisteredBase(nn.Module):
    """A base that registers the slot: what a subclass assigns lands in the buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("preds", None, persistent=False)


class Registered(RegisteredBase):
    def __init__(self, dim=4):
        super().__init__()
        self.classifier = nn.Linear(dim, 1)

    def query(self, points):
        self.preds = torch.sigmoid(self.classifier(points))
