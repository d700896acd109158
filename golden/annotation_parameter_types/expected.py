from typing import Optional, Union

import torch
import torch.nn as nn
from torch import Tensor


class Layer(nn.Module):
    """Parameter annotations type the argument: Optional[Tensor], Tensor | None and the legacy
    torch.FloatTensor are tensors; Union[nn.Parameter, Tensor] may be a Parameter passed in,
    which must stay a parameter, so it is reported rather than rewritten."""

    def __init__(
        self,
        adj: torch.FloatTensor,
        mask: Optional[Tensor] = None,
        bias: Tensor | None = None,
        weight: Union[nn.Parameter, Tensor] = None,
    ):
        super().__init__()
        self.register_buffer("adj", adj, persistent=False)
        self.register_buffer("mask", mask, persistent=False)
        self.register_buffer("bias", bias, persistent=False)
        self.weight = weight

    def forward(self, x):
        return self.adj @ x
