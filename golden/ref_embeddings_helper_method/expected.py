"""Word embeddings plus a fixed position encoding returned by a helper method."""

import math

import torch
import torch.nn as nn


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model, dropout=0.1, max_len=5000):
        """
        Args:
            vocab_size: 词典大小
            d_model: 词向量维度
            dropout: dropout比例
            max_len: 输入序列的最大长度
        """
        super(Embeddings, self).__init__()
        self.embs = nn.Embedding(vocab_size, d_model) # word embedding, 反向传播需要更新
        self.d_model = d_model
        self.dropout = nn.Dropout(dropout)

        # pe shape: (0, max_len, d_model)
        self.register_buffer(
            "pe", self._build_position_encoding(max_len, d_model), persistent=False
        )  # position encoding,反向传播不需要更新

    def forward(self, x):
        """
        Args:
            x: (batch_size, seq_len)
        Returns:
            embed: (batch_size, seq_len, d_model)
        """
        # word embedding + position encoding
        embed = self.embs(x) * math.sqrt(self.d_model) + self.pe[:, :x.size(1)]
        embed = self.dropout(embed)
        return embed

    def _build_position_encoding(self, max_len, d_model):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len, dtype=torch.float).unsqueeze(1) # shape: (max_len, 1)
        div_term = torch.exp(-torch.arange(0, d_model, 2, dtype=torch.float) * math.log(10000) / d_model) # shape: (1, ceil(d_model/2))

        pe[:, 0::2] = torch.sin(position * div_term)
        # d_model为偶数, 则sin 和 cos 列数相同
        # d_model为奇数, 则cos 比 sin 少一列
        pe[:, 1::2] = torch.cos(position * div_term) if d_model % 2 == 0 else torch.cos(position * div_term[:-1])
        pe = pe.unsqueeze(0)

        return pe


if __name__ == "__main__":
    model = Embeddings(5, 3)
    print(model.state_dict())

    for name, para in model.named_parameters():
        print(name, para)

    for name, buffer in model.named_buffers():
        print(name, buffer)

    model.cuda()
    print(model.state_dict())
