"""A transformers PreTrainedModel, and the modules built inside it, are left alone:
from_pretrained builds on the meta device and fills a buffer the checkpoint lacks with
uninitialised memory unless the model's _init_weights re-creates it."""

import torch
import torch.nn as nn
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny-codemod-golden"

    def __init__(self, hidden=4, **kwargs):
        self.hidden = hidden
        super().__init__(**kwargs)


class Block(nn.Module):
    def __init__(self, hidden=4):
        super().__init__()
        self.lin = nn.Linear(hidden, hidden)
        self.positions = torch.arange(float(hidden)) + 100

    def forward(self, x):
        return self.lin(x) + self.positions


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.block = Block(config.hidden)
        self.scale = torch.ones(config.hidden) * 2
        self.post_init()

    def forward(self, x):
        return self.block(x) * self.scale
