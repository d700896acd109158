from collections import OrderedDict

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.conv = nn.Conv2d(a, b, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Formatter:
    """Not a layer: what calling it returns says nothing about tensors."""

    def __call__(self, x):
        return f"{tuple(x.shape)}"


class Decoder(nn.Module):
    """forward keeps what layers picked from containers computed: a dict the constructor fills
    with layers (registered through a ModuleList), a ModuleList and a ModuleDict."""

    def __init__(self):
        super().__init__()
        self.convs = OrderedDict()
        for i in range(2):
            self.convs[("disp", i)] = Block(4, 4)
        self.decoder = nn.ModuleList(list(self.convs.values()))
        self.blocks = nn.ModuleList([Block(4, 4) for _ in range(2)])
        self.heads = nn.ModuleDict({"depth": nn.Conv2d(4, 1, 1)})
        self.formatters = {}
        self.formatters["shape"] = Formatter()

    def forward(self, x):
        self.outputs = {}
        for i in range(2):
            self.outputs[("disp", i)] = self.convs[("disp", i)](x)
        self.first = self.blocks[0](x)
        self.depth = self.heads["depth"](x)
        self.described = self.formatters["shape"](x)
        return self.outputs
