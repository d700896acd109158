"""The biases of the layers of a model handed in, kept in __init__ through a helper
(`layer.bias.data`, the tensor under each layer's parameter, sharing its storage): a list of
tensors the analysis types by a guess (the layers' class is not known), reported (BUF301),
never rewritten.  A list of the layers' names beside it is not."""

import torch
import torch.nn as nn


class FullGradient(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.layers = [m for m in model.modules() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d))]
        self.names = [type(layer).__name__ for layer in self.layers]
        self.bias_data = [self.get_bias(layer) for layer in self.layers]

    def get_bias(self, layer):
        if isinstance(layer, nn.BatchNorm2d):
            bias = -(layer.running_mean * layer.weight / torch.sqrt(layer.running_var + layer.eps)) + layer.bias
            return bias.data
        return layer.bias.data

    def forward(self, x):
        return self.model(x)
