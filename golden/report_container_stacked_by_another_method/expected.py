import torch as th
from torch import nn
from encoders import pretrained_encoder


class TrajectoryMemory(nn.Module):
    """Keeps the encoder's state of every step seen; nothing types the encoder's output, but
    th.stack takes only tensors."""

    def __init__(self):
        super().__init__()
        self.encoder = pretrained_encoder()
        self.history = []
        self.names = []  # appended with untyped values and never stacked: nothing to say

    def observe(self, frame, name):
        self.history.append(self.encoder(frame))
        self.names.append(name)

    def forward(self, query):
        memory = th.stack(tensors=self.history, dim=1)
        return (memory * query.unsqueeze(1)).sum(-1), len(self.names)
