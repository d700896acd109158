"""Sinusoidal position encoding built over several lines in the constructor."""

import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model=16, max_len=5000):
        super(PositionalEncoding, self).__init__()

        # 初始化位置编码矩阵
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)  # (1, max_len, d_model)

        # 将位置编码保存为模块属性
        self.pe = pe

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return x
