"""A table of class ids whose elements forward iterates in Python and tests against labels
it moves to the CPU itself (`labels.to("cpu")`): on the CPU today, the comparison works
while the model runs on a GPU; as a buffer the ids would follow the model, and a CUDA
element tested against a CPU tensor raises. It stays a plain attribute, with the reason.
A scale forward only multiplies its input by, on the model's device, is rewritten."""

import torch
import torch.nn as nn


class OpenVocabularyHead(nn.Module):
    def __init__(self, num_classes, dim):
        super().__init__()
        self.all_ids = torch.tensor(range(num_classes))
        self.register_buffer("scale", torch.arange(num_classes) * 2, persistent=False)
        self.proj = nn.Linear(num_classes, dim)

    def forward(self, scores):
        seen = torch.unique(scores.argmax(1)).to("cpu")
        unseen = torch.tensor([i for i in self.all_ids if i not in seen])
        return self.proj(scores * self.scale), unseen
