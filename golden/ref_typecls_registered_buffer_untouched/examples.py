import torch

from codemod.examples import example
from input import Config

example(
    "input.TypeCls",
    Config(type_num=5, hidden_size=8, decoder_dropout=0.1),
    inputs=lambda: (torch.randn(2, 7, 8), torch.ones(2, 7)),
)
