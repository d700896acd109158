import torch
import torch.nn as nn


class Grader(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return self.conv1(x)


class Tracker(nn.Module):
    """template() keeps what a child's stack of layers computed, read by track() on every frame."""

    def __init__(self):
        super().__init__()
        self.grader = Grader()
        self.head = nn.Conv2d(4, 4, 1)
        # built in the constructor: a guess of what a Sequential returns is no ground to rewrite
        self.probe = self.grader.conv1(torch.zeros(1, 4, 8, 8))

    def template(self, z):
        with torch.no_grad():
            self.memory = self.grader.conv1(self.head(z))

    def track(self, x):
        return self.grader(x) + self.memory
