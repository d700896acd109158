"""`A: np.ndarray` in the signature says the argument is a numpy array: `@` on it is numpy's
matrix product, so no call site is needed to know it is no tensor. The tensors the
constructor builds from it are another matter (here a registered layer's weight)."""

import numpy as np
import torch
import torch.nn as nn


class UnrolledSolver(nn.Module):
    def __init__(self, A: np.ndarray, diag_g_init: np.ndarray, num_layers=3):
        super().__init__()
        self.A = A
        self.m, self.n = A.shape
        self.diag_g = diag_g_init
        self.num_layers = num_layers
        self.layer = nn.Linear(self.n, self.n, bias=False)
        self.build()

    def build(self):
        B = (self.diag_g @ self.A).T / (1.01 * np.linalg.norm(self.diag_g @ self.A, 2) ** 2)
        S = np.identity(self.n) - np.matmul(B, self.A)
        with torch.no_grad():
            self.layer.weight.copy_(torch.tensor(S, dtype=torch.float32))

    def forward(self, y):
        x = y
        for _ in range(self.num_layers):
            x = self.layer(x)
        return x
