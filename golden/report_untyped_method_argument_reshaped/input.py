import torch
import torch.nn as nn


class PointerHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        self.single_head_key = None  # set per problem by set_keys

    def set_keys(self, encoded_nodes):
        self.single_head_key = encoded_nodes.transpose(1, 2)

    def forward(self, x):
        return torch.matmul(self.query(x), self.single_head_key)
