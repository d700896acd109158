from dataclasses import dataclass

import torch


@dataclass
class EventConfig:
    type_num: int = 5
    hidden_size: int = 16
    decoder_dropout: float = 0.1
    max_len: int = 64
    device: str = "cpu"


class LabelStats:
    """Not a module: plain statistics that happen to hold a tensor."""

    def __init__(self, counts):
        self.counts = torch.tensor(counts, dtype=torch.float)
        self.total = self.counts.sum()
