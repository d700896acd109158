"""Lookup tables a product-search model is handed and moves itself (`.to(device)`), read only
by a helper its forward hands them to: the helper's `torch.index_select(word_map, 0, ids)`
uses them as only a tensor is used. No call in the repository passes a value the codemod
can type, so each is reported (BUF308) with that use, and none is rewritten. A table that
only meets arithmetic (`distribution ** 0.75`, which a numpy array takes too) says nothing."""

import torch
import torch.nn as nn


class ProductSearch(nn.Module):
    def __init__(self, word_num, dim, word_map, word_lens, distribution, device="cpu"):
        super().__init__()
        self.words = nn.Embedding(word_num, dim)
        self.word_map = word_map.to(device)
        self.word_lens = word_lens.to(device)
        self.distribution = distribution.to(device)

    def generation_loss(self, ids, example_map, example_lens, candidates):
        words = torch.index_select(example_map, 0, ids).long()
        lens = torch.index_select(example_lens, 0, ids).float()
        noise = candidates ** 0.75
        return self.words(words).sum(1).pow(2).sum() / lens.sum() + noise.sum()

    def forward(self, ids):
        return self.generation_loss(ids, self.word_map, self.word_lens, self.distribution)
