import numpy as np
import torch

from input import Encoder


class Trainer:
    def __init__(self, adjacency, device="cpu"):
        self.device = device
        self.graph_neigh = torch.FloatTensor(adjacency + np.eye(adjacency.shape[0])).to(device)

    def train(self):
        self.model = Encoder(4, 4, self.graph_neigh).to(self.device)
        return self.model
