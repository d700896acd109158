import torch

from registry import MODELS


def build(name, data):
    if name == "normalised":
        data = torch.as_tensor(data)
        return MODELS.get("normalised")(4, 2, data.mean(), data.std())
    return MODELS["plain"](4, 2)
