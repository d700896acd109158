"""What a numpy array, a number, a string or a module handed in can do too is no evidence of
a tensor, and a call passing a non-tensor or a Parameter refutes one (repo/build.py): none of
these kept arguments is reported."""

import torch
import torch.nn as nn


class Normalise(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean  # arithmetic only: an array or a number works as well
        self.std = std

    def forward(self, x):
        return (x - self.mean) / self.std


class Summed(nn.Module):
    def __init__(self, table, sep):
        super().__init__()
        self.table = table
        self.sep = sep

    def forward(self, x):
        return x * self.table.sum() + len(self.sep.split(","))


class TopK(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.topk(x, self.k).values


class Shared(nn.Module):
    # its only call passes an nn.Parameter, which Module.__setattr__ registers
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, x):
        return torch.mm(x, self.weight.t())


class Scaled(nn.Module):
    # one call passes a number
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale.unsqueeze(0)


class Sizes(nn.Module):
    # a tensor's size and element count are numbers, whatever the argument is
    def __init__(self, example):
        super().__init__()
        self.n = example.size(0)
        self.k = example.numel()

    def forward(self, x):
        return x * self.n / self.k


class BatchStats(nn.Module):
    # eps and dim sit where every overload torch has takes a number (torch's own schemas say so)
    def __init__(self, eps, dim):
        super().__init__()
        self.eps = eps
        self.dim = dim

    def forward(self, x, index):
        mean, invstd = torch.batch_norm_stats(x, self.eps)
        return torch.index_select(x, self.dim, index) * invstd.mean() + mean.mean()


class TextEncoder(nn.Module):
    # a model's projection, kept from another module: repo/clip_model.py makes it an
    # nn.Parameter, which Module.__setattr__ registers here too; the reshape's sizes are sizes
    def __init__(self, clip_model, width):
        super().__init__()
        self.text_projection = clip_model.text_projection
        self.width = width

    def forward(self, x):
        return torch.reshape(x, shape=[-1, self.width]) @ self.text_projection


class Rescaled(nn.Module):
    # `.dim(x, unit)` passes arguments Tensor.dim() does not take: another object's method
    def __init__(self, scaler, unit):
        super().__init__()
        self.scaler = scaler
        self.unit = unit

    def forward(self, x):
        return self.scaler.dim(x, self.unit)
