import torch
import torch.nn as nn


class Pieces(nn.Module):
    """torch.split / .chunk / .unbind / torch.meshgrid / sort / topk / max(dim), with device
    moves on the items or afterwards: the moves stay as they were."""

    def __init__(self, n=6, device="cpu"):
        super().__init__()
        ramp = torch.arange(n)
        self.low, self.high = torch.split(ramp, n // 2)
        self.low = self.low.to(device)
        self.left, self.right = torch.linspace(0.0, 1.0, n).chunk(2)
        self.rows, self.cols = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
        self.first, self.second = torch.eye(2).unbind(0)
        self.values, self.order = torch.sort(torch.linspace(1.0, 0.0, n))
        self.best, self.best_index = torch.linspace(0.0, 1.0, n).topk(2)
        self.peak, self.argpeak = torch.max(torch.eye(3), 1)
        self.a, self.b = torch.ones(2).to(device), torch.zeros(2).to(device)

    def forward(self, x):
        return x + self.left.sum() + self.right.sum()
