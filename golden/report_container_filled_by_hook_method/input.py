"""A method handed to register_forward_hook receives the layer's output as its third
argument: a dict it fills with that output (`self.hidden[device] = output.flatten(1)`) is a
container of tensors, reported (BUF301); a hook that keeps only a shape is not."""

import torch.nn as nn


class NetWrapper(nn.Module):
    def __init__(self, net, layer=-2):
        super().__init__()
        self.net = net
        self.layer = layer
        self.hidden = {}
        self.shapes = {}
        self.hook_registered = False

    def _hook(self, _, input, output):
        device = input[0].device
        self.hidden[device] = output.flatten(1)

    def _shape_hook(self, _, input, output):
        self.shapes[len(self.shapes)] = tuple(output.shape)

    def _register_hook(self):
        layer = [*self.net.children()][self.layer]
        layer.register_forward_hook(self._hook)
        layer.register_forward_hook(self._shape_hook)
        self.hook_registered = True

    def forward(self, x):
        if not self.hook_registered:
            self._register_hook()
        self.net(x)
        return self.hidden[x.device]
