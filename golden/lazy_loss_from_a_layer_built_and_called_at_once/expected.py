"""`nn.MSELoss(reduction="sum")(pred, target)` builds a torch loss and calls it at once: its
result is a tensor, as `self.criterion(pred, target)` is. A None placeholder filled with it in
forward is a lazy tensor (BUF107), like one filled by a held loss; `nn.LSTM(4, 4)(x)` returns a
tuple, not a tensor, so a placeholder filled with it stays unknown and silent. Losses set
under `if self.training:` (in both arms of an if/else, too) are set on every training call:
per-call values, reported, as `Detector`'s are (a placeholder set only sometimes is state: an
empty buffer slot, see lazy_none_then_tensor_in_forward)."""

import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.head = nn.Conv2d(channels, channels, 1)
        self.criterion = nn.SmoothL1Loss()
        self.box_loss = None
        self.score_loss = None
        self.state = None

    def forward(self, x, target):
        out = self.head(x)
        boxes = out.shape[0]
        self.box_loss = nn.MSELoss(reduction="sum")(out, target) / boxes
        self.score_loss = self.criterion(out, target)
        self.state = nn.LSTM(4, 4)(out.flatten(2)[..., :4])
        return out

    @property
    def loss(self):
        return self.box_loss + self.score_loss


class TrainingDetector(nn.Module):
    def __init__(self, channels=3, weighted=False):
        super().__init__()
        self.head = nn.Conv2d(channels, channels, 1)
        self.weighted = weighted
        self.box_loss = None
        self.cls_loss = None

    def forward(self, x, target):
        out = self.head(x)
        if self.training:
            self.box_loss = nn.MSELoss(reduction="sum")(out, target) / out.shape[0]
            if self.weighted:
                self.cls_loss = torch.sum((out * target) ** 2)
            else:
                self.cls_loss = nn.MSELoss(reduction="sum")(out, target)
        return out

