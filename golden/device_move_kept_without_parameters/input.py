"""A module without parameters of its own (a loss, a fixed filter) shows nothing that moves
it with .to(): a user may build it on the device and never move it, so the move is kept.
Holding a layer without weights (nn.MSELoss(), nn.ReLU(), nn.MaxPool2d(2)) changes nothing:
it runs on any device unmoved.  A loss holding class weights (a buffer) must be moved, as
must a layer with parameters: there the move is dropped."""

import torch
import torch.nn as nn


class WeightedLoss(nn.Module):
    def __init__(self, weights=(1.0, 2.0), device="cpu"):
        super().__init__()
        self.weights = torch.tensor(weights).to(device)
        self.kernel = torch.ones(3).cuda() if device == "cuda" else torch.ones(3)

    def forward(self, input, target):
        return (self.weights * (input - target) ** 2).mean()


class LocationLoss(nn.Module):
    def __init__(self, w=192, h=192, device="cpu"):
        super().__init__()
        self.loss = nn.MSELoss()
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.img_size = torch.FloatTensor([w, h]).to(device)

    def forward(self, pred, target):
        return self.loss(self.act(pred), target / self.img_size)


class ClassWeighted(nn.Module):
    def __init__(self, weights=(1.0, 2.0, 3.0), device="cpu"):
        super().__init__()
        self.ce = nn.CrossEntropyLoss(weight=torch.tensor(weights))
        self.offsets = torch.arange(3).to(device)

    def forward(self, logits, labels):
        return self.ce(logits, labels + self.offsets[0])
