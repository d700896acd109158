"""A method handed to register_forward_hook receives the tuple of the layer's inputs as its
second argument: a list of copies of those inputs kept on the module (a feature extractor's
`self.inputs`, None in __init__) holds tensors, reported (BUF301); the sizes kept beside it
are not."""

import torch.nn as nn


class FeatureExtractor(nn.Module):
    def __init__(self, submodule, layername):
        super().__init__()
        self.submodule = submodule
        self.layername = layername
        self.inputs = None
        self.inputs_size = None

    def get_input_array(self, m, i, o):
        self.inputs = [i[index].data.clone() for index in range(len(i))]
        self.inputs_size = [tensor.size() for tensor in self.inputs]

    def forward(self, x):
        target_layer = self.submodule._modules.get(self.layername)
        handle = target_layer.register_forward_hook(self.get_input_array)
        out = self.submodule(x)
        handle.remove()
        return out
