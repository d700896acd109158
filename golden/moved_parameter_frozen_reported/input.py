import torch
import torch.nn as nn
import torch.nn.functional as F


class Sobel(nn.Module):
    """A frozen kernel wrapped in nn.Parameter(..., requires_grad=False), then moved: a
    parameter (in state_dict) where the move returns it unchanged, a plain tensor elsewhere.
    Nothing is trained either way, so the report says so and suggests a buffer."""

    def __init__(self, device="cpu"):
        super().__init__()
        kernel = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]).view(1, 1, 3, 3)
        self.weight = nn.Parameter(data=kernel, requires_grad=False).to(device)

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1).abs()
