import torch
import torch.nn as nn


def split_heads(qkv, head_num):
    """(batch, n, head_num * d) -> (batch, head_num, n, d)"""
    batch, n = qkv.size(0), qkv.size(1)
    return qkv.reshape(batch, n, head_num, -1).transpose(1, 2)


class Decoder(nn.Module):
    def __init__(self, dim, head_num):
        super().__init__()
        self.head_num = head_num
        self.Wk = nn.Linear(dim, dim, bias=False)
        self.Wv = nn.Linear(dim, dim, bias=False)
        self.register_buffer(
            "k", None, persistent=False
        )  # keys of the encoded nodes, set once per problem
        self.register_buffer("v", None, persistent=False)

    def set_kv(self, encoded_nodes):
        self.k = split_heads(self.Wk(encoded_nodes), head_num=self.head_num)
        self.v = split_heads(self.Wv(encoded_nodes), self.head_num)

    def forward(self, q):
        scores = torch.softmax(q @ self.k.transpose(2, 3), dim=-1)
        return scores @ self.v
