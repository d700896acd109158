"""Methods are read with what self holds once built: the layers a repository base's
constructor makes (`self.relation_linear`), and, for a submodule's forward, the layers of
that submodule's own constructor.  Their results kept on self are reported (BUF303, BUF301)."""

import torch
import torch.nn as nn


class BaseModel(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.relation_embedding = nn.Embedding(4, dim)
        self.relation_linear = nn.Linear(dim, dim)

    def get_rel_feature(self):
        return self.relation_linear(self.relation_embedding.weight)


class Instruction(nn.Module):
    def __init__(self, dim=8, steps=2):
        super().__init__()
        self.steps = steps
        self.question_linear = nn.Linear(dim, dim)

    def forward(self, query):
        instructions = []
        for _ in range(self.steps):
            instructions.append(self.question_linear(query))
        return instructions


class GNNModel(BaseModel):
    def __init__(self, dim=8):
        super().__init__(dim)
        self.instruction = Instruction(dim)

    def init_reason(self, query):
        self.rel_features = self.get_rel_feature()
        self.instruction_list = self.instruction(query)

    def forward(self, query):
        self.init_reason(query)
        return self.rel_features.sum() + torch.stack(self.instruction_list).sum()
