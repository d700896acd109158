import torch

try:
    from schedlib.base import Scheduler
except ImportError:  # the package is not vendored: this copy runs without it
    Scheduler = object


class CosineSchedule(Scheduler):
    """A class of an outside package's hierarchy that builds no torch.nn submodule: nothing
    suggests an nn.Module, so its tensors are none of the codemod's business."""

    def __init__(self, steps=10):
        super().__init__()
        self.values = torch.cos(torch.linspace(0, 3.14159, steps))

    def forward(self, step):
        return self.values[step]
