import torch
from torch import nn


class Detector(nn.Module):
    """Normalizes images with the dataset's pixel statistics before the backbone."""

    def __init__(self, pixel_mean, pixel_std, device="cpu"):
        super().__init__()
        self.device = torch.device(device)
        self.backbone = nn.Conv2d(3, 8, 3, padding=1)
        mean = torch.tensor(pixel_mean).to(self.device).view(-1, 1, 1)
        std = torch.tensor(pixel_std).to(self.device).view(-1, 1, 1)
        self.normalizer = lambda x: (x - mean) / std  # closes over both tensors

    def forward(self, images):
        return self.backbone(self.normalizer(images))


class Scaler(nn.Module):
    def __init__(self, n):
        super().__init__()
        weights = torch.linspace(0.0, 1.0, n)
        self.weigh = lambda x, power=2: x * weights**power

    def forward(self, x):
        return self.weigh(x)
