"""Values the codemod cannot type that the class uses in ways other objects are used too
(a module's call, len(), a number's product, numpy's own functions, a dict's item): no
finding (BUF312 needs a use only a tensor has)."""

import numpy as np
import torch
import torch.nn as nn
try:
    from builders import build_encoder, load_statistics, load_vectors, load_vocab, scale_for  # not vendored
except ImportError:  # this copy imports without it
    build_encoder = load_statistics = load_vectors = load_vocab = scale_for = None


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = build_encoder(cfg)
        self.vocab = load_vocab(cfg)
        self.scale = scale_for(cfg)
        self.vectors = load_vectors(cfg)
        self.stats = load_statistics(cfg)

    def forward(self, x):
        width = len(self.vocab)
        vectors = torch.from_numpy(np.asarray(self.vectors))
        y = self.encoder(x) * self.scale
        return (y - self.stats["mean"]) / width + vectors.sum()
