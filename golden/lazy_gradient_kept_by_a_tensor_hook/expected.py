"""A gradient kept by a tensor's hook method (`y.register_hook(self.save_gradient)`, the
Grad-CAM pattern): the hook receives a tensor, so the None placeholder becomes an empty
buffer slot, as it does for a forward hook's output."""

import torch
import torch.nn as nn


class GradCamNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Conv2d(3, 4, 3)
        self.head = nn.Linear(4, 2)
        self.register_buffer("gradients", None, persistent=False)

    def save_gradient(self, grad):
        self.gradients = grad

    def forward(self, x):
        maps = self.features(x)
        if maps.requires_grad:
            maps.register_hook(self.save_gradient)
        return self.head(maps.mean((2, 3)))

    def activation_gradient(self):
        return self.gradients
