import torch
import torch.nn as nn


class Pieces(nn.Module):
    """torch.split / .chunk / .unbind / torch.meshgrid / sort / topk / max(dim), with device
    moves on the items or afterwards: the moves stay as they were."""

    def __init__(self, n=6, device="cpu"):
        super().__init__()
        ramp = torch.arange(n)
        low, high = torch.split(ramp, n // 2)
        self.register_buffer("low", low, persistent=False)
        self.register_buffer("high", high, persistent=False)
        self.low = self.low.to(device)
        left, right = torch.linspace(0.0, 1.0, n).chunk(2)
        self.register_buffer("left", left, persistent=False)
        self.register_buffer("right", right, persistent=False)
        rows, cols = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
        self.register_buffer("rows", rows, persistent=False)
        self.register_buffer("cols", cols, persistent=False)
        first, second = torch.eye(2).unbind(0)
        self.register_buffer("first", first, persistent=False)
        self.register_buffer("second", second, persistent=False)
        values, order = torch.sort(torch.linspace(1.0, 0.0, n))
        self.register_buffer("values", values, persistent=False)
        self.register_buffer("order", order, persistent=False)
        best, best_index = torch.linspace(0.0, 1.0, n).topk(2)
        self.register_buffer("best", best, persistent=False)
        self.register_buffer("best_index", best_index, persistent=False)
        peak, argpeak = torch.max(torch.eye(3), 1)
        self.register_buffer("peak", peak, persistent=False)
        self.register_buffer("argpeak", argpeak, persistent=False)
        a, b = torch.ones(2).to(device), torch.zeros(2).to(device)
        self.register_buffer("a", a, persistent=False)
        self.register_buffer("b", b, persistent=False)

    def forward(self, x):
        return x + self.left.sum() + self.right.sum()
