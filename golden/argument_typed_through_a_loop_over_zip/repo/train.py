import torch

from input import Masked, Propagation, Scaled


def build(n):
    kernels = torch.stack([torch.ones(n, n) * k for k in range(3)])
    led_kernels = torch.stack([torch.ones(n, n) / (k + 1) for k in range(3)])
    layers = []
    for kernel, led_kernel in zip(kernels, led_kernels):
        layers += [Propagation(kernel), Propagation(led_kernel)]
    masks = torch.ones(4, n) > 0
    for i, mask in enumerate(masks):
        layers.append(Masked(mask.float()))
    for row, factor in zip(kernels, [0.5, 1.0, 2.0]):
        layers.append(Scaled(factor))
    return layers
