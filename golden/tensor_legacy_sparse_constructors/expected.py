import torch
import torch.nn as nn


class SparseGraph(nn.Module):
    """Legacy sparse constructors and the sparse factories: tensors like any other."""

    def __init__(self, n=3):
        super().__init__()
        index = torch.tensor([[0, 1, 2], [1, 2, 0]])
        values = torch.ones(3)
        self.register_buffer(
            "adj",
            torch.sparse.FloatTensor(index, values, torch.Size([n, n])),
            persistent=False,
        )
        self.register_buffer(
            "counts",
            torch.sparse.LongTensor(index, torch.tensor([1, 2, 3]), torch.Size([n, n])),
            persistent=False,
        )
        self.register_buffer(
            "coo", torch.sparse_coo_tensor(index, values, (n, n)), persistent=False
        )
        self.register_buffer(
            "csr",
            torch.sparse_csr_tensor(
                torch.tensor([0, 1, 2, 3]), torch.tensor([1, 2, 0]), values, (n, n)
            ),
            persistent=False,
        )

    def forward(self, x):
        return torch.sparse.mm(self.adj, x) + torch.sparse.mm(self.coo, x)
