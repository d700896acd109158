"""Dataclasses that carry tensors are not modules: never rewritten."""

from dataclasses import dataclass, field

import torch


@dataclass
class Batch:
    tokens: torch.Tensor
    mask: torch.Tensor = field(default_factory=lambda: torch.ones(1, 4, dtype=torch.bool))

    def __post_init__(self):
        self.lengths = self.mask.sum(-1)
        self.positions = torch.arange(self.tokens.size(-1))


@dataclass
class Stats:
    mean: torch.Tensor = field(default_factory=lambda: torch.zeros(3))
    std: torch.Tensor = field(default_factory=lambda: torch.ones(3))


if __name__ == "__main__":
    print(Batch(torch.zeros(1, 4, dtype=torch.long)), Stats())
