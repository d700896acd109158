"""An encoder picked from a table by name, as hub loaders do."""
from torch import nn

ENCODERS = {"linear": lambda: nn.Linear(4, 4)}


def pretrained_encoder(name="linear"):
    return ENCODERS[name]()
