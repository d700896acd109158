import torch
import torch.nn as nn


class STGCN(nn.Module):
    """Tensors reached through an attribute of a constructor argument: `args.gso`,
    `config.adj.to(device)`; typed from the repository's calls (repo/train.py)."""

    def __init__(self, args, config, n=3):
        super().__init__()
        self.register_buffer("gso", args.gso, persistent=False)
        self.register_buffer("adj", config.adj, persistent=False)
        self.order = args.order  # a number: left alone
        self.lin = nn.Linear(n, n)

    def forward(self, x):
        return self.lin(torch.mm(self.gso, x) + torch.mm(self.adj, x))
