import torch
from torch import nn

DEVICE = torch.device("cpu")


class Converter:
    def encode(self, words):
        return torch.IntTensor([len(w) for w in words]), torch.IntTensor([len(words)])


class Writer(nn.Module):
    def __init__(self):
        super().__init__()
        self.converter = Converter()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, words):
        self.text_encode, self.len_text = self.converter.encode(words)
        self.text_encode = self.text_encode.to(DEVICE)
        return self.proj(x) * self.len_text
