"""What an nn.Sequential returns, kept on self by a method other than __init__
(`self.utt_shared_t = self.shared(x)`, or through a chained assignment
`self.utt_orig = x = self.project(x)`), is reported as a per-call tensor (BUF303): a stack of
layers hands on one tensor.  In __init__ the same guess is not made, as a constructor's values
may be rewritten."""

import torch
import torch.nn as nn


class MISA(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.project = nn.Sequential()
        self.project.add_module("project_linear", nn.Linear(dim, dim))
        self.project.add_module("project_activation", nn.ReLU())
        self.shared = nn.Sequential(nn.Linear(dim, dim), nn.Sigmoid())
        self.probe = self.shared(torch.zeros(1, dim))

    def shared_private(self, utterance):
        self.utt_orig = utterance = self.project(utterance)
        self.utt_shared = self.shared(utterance)

    def forward(self, x):
        self.shared_private(x)
        return self.utt_shared + self.utt_orig
