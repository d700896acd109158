"""Event-type classifier whose type indices must follow the model across devices."""

import torch
import torch.nn as nn


class Config:
    def __init__(self, type_num=5, hidden_size=8, decoder_dropout=0.1):
        self.type_num = type_num
        self.hidden_size = hidden_size
        self.decoder_dropout = decoder_dropout


class AdaptiveAdditionPredictor(nn.Module):
    def __init__(self, hidden_size, dropout_rate=0.0):
        super(AdaptiveAdditionPredictor, self).__init__()
        self.hidden = nn.Linear(hidden_size * 4, hidden_size)
        self.v = nn.Linear(hidden_size, 1)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, query, context, mask):
        # query: [c, h], context: [b, s, h], mask: [b, s]
        context = context * mask.unsqueeze(-1)
        pooled = context.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)  # [b, h]
        q = query.unsqueeze(0).expand(pooled.size(0), -1, -1)  # [b, c, h]
        p = pooled.unsqueeze(1).expand_as(q)
        features = torch.cat([q, p, q * p, q - p], dim=-1)  # [b, c, 4h]
        hidden = torch.tanh(self.hidden(self.dropout(features)))
        return self.v(hidden).squeeze(-1)  # [b, c]


class TypeCls(nn.Module):
    def __init__(self, config):
        super(TypeCls, self).__init__()
        self.type_emb = nn.Embedding(config.type_num, config.hidden_size)
        self.register_buffer(
            "type_indices", torch.arange(0, config.type_num, 1).long(), persistent=False
        )
        self.dropout = nn.Dropout(config.decoder_dropout)

        self.config = config
        self.Predictor = AdaptiveAdditionPredictor(config.hidden_size, dropout_rate=config.decoder_dropout)

    def forward(self, text_rep, mask):
        type_emb = self.type_emb(self.type_indices)
        pred = self.Predictor(type_emb, text_rep, mask)  # [b, c]
        p_type = torch.sigmoid(pred)
        return p_type, type_emb
