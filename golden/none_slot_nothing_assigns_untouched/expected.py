"""Slots set to None that nothing in the repository assigns, or that the class uses only as
other objects are used too (`.to(...)` is a module's method as well): no finding (BUF313
needs a tensor-only use and an assignment through another object)."""

import torch.nn as nn
import torch.nn.functional as F


class OptionalAffineNorm(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = None  # an affine-free norm: batch_norm takes None here
        self.bias = None

    def forward(self, x):
        return F.batch_norm(x, None, None, self.weight, self.bias, True, 0.1, self.eps)


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = None  # a module set by the trainer

    def forward(self, x):
        return self.teacher.to(x.device)(x)


def attach(student, teacher):
    student.teacher = teacher
