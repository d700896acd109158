"""A graph-alignment model whose per-layer weights are made as nn.Parameters in plain lists:
a list registers nothing, so `model.parameters()` lacks them and the optimizer built from it
never trains them; `.to()` and `state_dict()` miss them too. Reported with that effect and
the fix, nn.ParameterList; never rewritten (the new keys would change the checkpoints)."""

import torch
import torch.nn as nn


class GCNAlign(nn.Module):
    def __init__(self, num_nodes=10, dim=4, n_layers=2):
        super().__init__()
        self.embeddings = nn.Embedding(num_nodes, dim)
        self.weights = [nn.Parameter(torch.eye(dim)) for _ in range(n_layers)]
        self.biases = [nn.Parameter(torch.zeros(dim)) for _ in range(n_layers)]

    def forward(self, adjacency):
        x = self.embeddings.weight
        for weight, bias in zip(self.weights, self.biases):
            x = torch.relu(adjacency @ x @ weight + bias)
        return x
