"""A transform that keeps its interpolation mode and hands it to torchvision's functional
module, imported as `F` like torch.nn.functional often is. `resized_crop` is no function of
torch's: nothing shows the argument is a tensor, so nothing is reported. The weight handed to
torch's own `conv2d` through the same alias in a sibling module still is (BUF308)."""

import torch

try:
    import torchvision.transforms.functional as F
except ImportError:  # the same call, where torchvision is not installed
    class F:
        @staticmethod
        def resized_crop(img, top, left, height, width, size, interpolation):
            crop = img[..., top:top + height, left:left + width]
            return torch.nn.functional.interpolate(crop, size=size)


class RandomResizedPaddingCrop(torch.nn.Module):
    def __init__(self, size, interpolation=2):
        super().__init__()
        self.size = size
        self.interpolation = interpolation

    def forward(self, img):
        return F.resized_crop(img, 0, 0, self.size, self.size, (self.size, self.size), self.interpolation)


class Blur(torch.nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, x):
        return torch.nn.functional.conv2d(x, self.weight)
