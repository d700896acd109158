import torch.nn as nn


class Wrapper(nn.Module):
    """`encoder.to(device)` keeps what it is handed; the repository's call (repo/main.py) passes a
    module, which nn.Module registers as a submodule: nothing to rewrite."""

    def __init__(self, encoder, device):
        super().__init__()
        self.encoder = encoder.to(device)

    def forward(self, x):
        return self.encoder(x) * 2
