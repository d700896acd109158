"""An empty list or dict set in __init__ and replaced by a method with one of tensors (class
means recomputed from exemplars) is reported like one filled in place (BUF301): its tensors
are neither moved by .to() nor saved.  One replaced by a list of numbers is no tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Prototypes(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.features = nn.Linear(dim, dim)
        self.class_means = []
        self.by_name = {}
        self.counts = []

    def recompute(self, exemplar_sets):
        class_means = []
        for exemplars in exemplar_sets:
            class_means.append(F.normalize(self.features(exemplars).mean(0), dim=0))
        self.class_means = class_means
        self.by_name = {"first": torch.stack(class_means)[0]}
        self.counts = [len(exemplars) for exemplars in exemplar_sets]

    def forward(self, x):
        return self.features(x) @ torch.stack(self.class_means).t()
