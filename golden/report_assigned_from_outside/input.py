"""A slot set to None in __init__ that the class never fills itself but uses as only a
tensor is used, while other code assigns it through another object: reported (BUF313)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AdaptiveInstanceNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.weight = None  # assigned by the decoder before each call
        self.bias = None

    def forward(self, x):
        b, c = x.size(0), x.size(1)
        out = F.batch_norm(x.reshape(1, b * c, -1), None, None, self.weight, self.bias, True, 0.1, self.eps)
        return out.view_as(x)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features):
        super().__init__(in_features, out_features)
        self.masked_weight = None  # filled by the estimator once training is over

    def forward(self, x):
        return F.linear(x, self.masked_weight, self.bias)


class Decoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = AdaptiveInstanceNorm1d(dim)
        self.out = MaskedLinear(dim, dim)

    def forward(self, x, style):
        self.norm.weight, self.norm.bias = style[:, 0].reshape(-1), style[:, 1].reshape(-1)
        return self.out(self.norm(x).transpose(1, 2))


def freeze(decoder):
    layer = decoder.out
    setattr(layer, "masked_weight", layer.weight.detach().clone())
