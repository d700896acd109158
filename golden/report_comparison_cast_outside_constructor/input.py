"""A cast of an elementwise comparison (`(ids != pad).float()`) is a tensor: a Python bool
and a numpy array of them have no such method.  Kept by a method other than __init__, it
is reported (BUF303); a comparison that is not cast stays a bool the analysis says nothing of."""

import torch.nn as nn


class QuestionEncoder(nn.Module):
    def __init__(self, num_word=10, dim=8):
        super().__init__()
        self.num_word = num_word
        self.embedding = nn.Embedding(num_word + 1, dim)

    def encode_question(self, query_text):
        self.query_mask = (query_text != self.num_word).float()
        self.has_padding = query_text is None

    def forward(self, query_text):
        self.encode_question(query_text)
        return self.embedding(query_text) * self.query_mask.unsqueeze(-1)


class EntityMask(nn.Module):
    def __init__(self, num_entity=5):
        super().__init__()
        self.num_entity = num_entity

    def init_reason(self, local_entity):
        self.local_entity_mask = (local_entity != self.num_entity).long()

    def forward(self, scores):
        return scores * self.local_entity_mask
