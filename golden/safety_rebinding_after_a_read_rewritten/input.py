import torch
import torch.nn as nn


class Smoother(nn.Module):
    """forward reads the kernel before it moves it: that read is not placed by the move, so
    nothing shows the class keeps the kernel's dtype on purpose, and it is registered."""

    def __init__(self, size=5):
        super().__init__()
        self.kernel = torch.ones(1, 1, size) / size

    def forward(self, x):
        width = self.kernel.shape[-1] + 0 * self.kernel.sum().int()
        self.kernel = self.kernel.to(x.device)
        return nn.functional.conv1d(x, self.kernel, padding=int(width) // 2)
