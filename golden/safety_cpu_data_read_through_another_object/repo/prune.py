import torch


def prune(net, indices):
    """The classes of the prototypes to prune, read on the host."""
    return torch.argmax(net.module.identity[indices], dim=1).numpy()
