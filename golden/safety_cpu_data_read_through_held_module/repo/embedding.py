import torch
import torch.nn as nn
from torch import LongTensor as LT


class Word2Vec(nn.Module):
    def __init__(self, vocab_size=10, dim=4):
        super().__init__()
        self.ovectors = nn.Embedding(vocab_size, dim)

    def forward_o(self, data):
        v = LT(data)
        v = v.cuda() if self.ovectors.weight.is_cuda else v
        return self.ovectors(v)
