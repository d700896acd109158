"""A base class's argument handed on by subclasses stays untyped unless every path hands a
tensor: a subclass passing a number or None of its own, one whose callers pass a list, a
`super()` that reaches another base first, or a subclass's arguments handed on unpacked
(repo/build.py).  Where no call shows a non-tensor either (Window, Forwarding), the use in
forward is reported (BUF308); where one does (Propagate, Scaled), nothing is said."""

import torch
import torch.nn as nn


class Propagate(nn.Module):
    def __init__(self, adj, steps=2):
        super().__init__()
        self.adj = adj
        self.steps = steps

    def forward(self, x):
        for _ in range(self.steps):
            x = torch.mm(self.adj, x)
        return x


class FromTensor(Propagate):
    def __init__(self, adj):
        super().__init__(adj)


class FromList(Propagate):
    # Its call passes a list: the base's adj is not always a tensor.
    def __init__(self, adj):
        super().__init__(adj, steps=1)


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.mul(x, self.scale)


class Unscaled(Scaled):
    def __init__(self, scale):
        super().__init__(None)


class Halved(Scaled):
    def __init__(self):
        super().__init__(0.5)


class Mixin:
    def __init__(self, *args, **kwargs):
        super().__init__()


class Window(nn.Module):
    def __init__(self, window):
        super().__init__()
        self.window = window

    def forward(self, x):
        return x * torch.ones_like(self.window)


class MixedWindow(Mixin, Window):
    # super() here is Mixin's constructor, not Window's.
    def __init__(self, window):
        super().__init__(window)


class Forwarding(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, x):
        return torch.mm(x, self.table)


class ForwardingSub(Forwarding):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
