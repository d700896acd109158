import torch.nn as nn


class Backbone(nn.Module):
    """Each hook comes from a factory that names it (`get_hook(name)`); the hook it returns
    stores the layer's output in a dict the constructor made: a dict of tensors, reported."""

    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(4, 4)
        self.layer2 = nn.Linear(4, 4)
        self._maps = {}
        self._hooks = []
        self._register()

    def _register(self):
        def get_hook(name):
            def hook(module, input, output):
                self._maps[name] = output.detach()

            return hook

        for name in ("layer1", "layer2"):
            self._hooks.append(getattr(self, name).register_forward_hook(get_hook(name)))

    def forward(self, x):
        return self.layer2(self.layer1(x))
