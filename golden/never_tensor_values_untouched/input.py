"""Attributes that hold torch objects which are not tensors are left alone."""

import numpy as np
import torch
import torch.nn as nn


class TrainingWrapper(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.lin = nn.Linear(features, features)
        self.device = torch.device("cpu")
        self.dtype = torch.float32
        self.shape = torch.Size([features, features])
        self.eps = torch.finfo(torch.float32).eps
        self.max_id = torch.iinfo(torch.int64).max
        self.generator = torch.Generator().manual_seed(0)
        self.compiled = torch.compile(self.lin)
        self.optimizer = torch.optim.SGD(self.lin.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(features, 1))
        self.norm = torch.ones(features).sum().item()
        self.sizes = torch.arange(features).tolist()
        self.num_params = sum(p.numel() for p in self.lin.parameters())
        self.scale = 0.5
        self.grid = np.linspace(0.0, 1.0, features)
        self.cpu_stream = torch.cpu.Stream()

    def forward(self, x):
        return self.head(self.lin(x) * self.scale)
