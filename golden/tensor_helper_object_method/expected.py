import torch
from torch import nn


class LabelConverter:
    """A plain helper object: its encode() returns index tensors."""

    def __init__(self, alphabet):
        self.index = {c: i + 1 for i, c in enumerate(alphabet)}

    def encode(self, words):
        lengths = [len(w) for w in words]
        codes = [self.index[c] for w in words for c in w]
        return torch.IntTensor(codes), torch.IntTensor(lengths)

    def name(self):
        return "converter"


class Recogniser(nn.Module):
    def __init__(self, alphabet, words):
        super().__init__()
        self.converter = LabelConverter(alphabet)
        codes, lengths = self.converter.encode(words)
        self.register_buffer("codes", codes, persistent=False)
        self.register_buffer("lengths", lengths, persistent=False)
        self.label = self.converter.name()
        self.embed = nn.Embedding(len(alphabet) + 1, 8)

    def forward(self, x):
        return x + self.embed(self.codes.long()).sum()
