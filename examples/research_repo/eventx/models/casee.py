import torch
import torch.nn as nn

from ..utils import sinusoid_table
from .layers import AdaptiveAdditionPredictor, Block


class TypeCls(nn.Module):
    def __init__(self, config):
        super(TypeCls, self).__init__()
        self.type_emb = nn.Embedding(config.type_num, config.hidden_size)
        self.type_indices = torch.arange(0, config.type_num, 1).long()
        self.dropout = nn.Dropout(config.decoder_dropout)

        self.config = config
        self.Predictor = AdaptiveAdditionPredictor(config.hidden_size, dropout_rate=config.decoder_dropout)

    def forward(self, text_rep, mask):
        type_emb = self.type_emb(self.type_indices)
        pred = self.Predictor(type_emb, text_rep, mask)  # [b, c]
        p_type = torch.sigmoid(pred)
        return p_type, type_emb


class PositionAware(Block):
    def __init__(self, hidden_size=16, max_len=64, device="cpu"):
        super().__init__(hidden_size)
        # fixed sinusoidal table, built by a helper of another file
        self.pe = sinusoid_table(max_len, hidden_size).to(device)
        self.scale = torch.tensor(hidden_size ** 0.5)

    def forward(self, x):
        return self.norm(x * self.scale + self.pe[:, : x.size(1)])


class CasEE(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.position = PositionAware(config.hidden_size, config.max_len, config.device)
        self.type_cls = TypeCls(config)
        self.noise = torch.randn(config.hidden_size) * 0.01
        self.class_weights = [torch.ones(config.type_num), torch.ones(config.type_num)]

    def forward(self, text_rep, mask):
        text_rep = self.position(text_rep) + self.noise
        return self.type_cls(text_rep, mask)
