"""How codemod builds this repository's modules to validate its rewrites."""

import torch

from codemod.examples import example
from eventx.config import EventConfig

config = EventConfig()

example("eventx.models.casee.TypeCls", config,
        inputs=lambda: (torch.randn(2, 7, config.hidden_size), torch.ones(2, 7)))
example("eventx.models.casee.CasEE", config,
        inputs=lambda: (torch.randn(2, 7, config.hidden_size), torch.ones(2, 7)))
example("eventx.models.layers.AdaptiveAdditionPredictor", config.hidden_size,
        inputs=lambda: (torch.randn(config.type_num, config.hidden_size), torch.randn(2, 7, config.hidden_size), torch.ones(2, 7)))
example("eventx.models.casee.PositionAware", inputs=lambda: (torch.randn(2, 7, 16),))
example("eventx.models.layers.CausalSelfAttention", inputs=lambda: (torch.randn(2, 7, 16),))
