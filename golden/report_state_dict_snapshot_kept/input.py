import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.solution_u = nn.Linear(dim, 1)
        self.dynamical_f = nn.Linear(dim + 1, 1)
        self.best_model = None

    def forward(self, x):
        u = self.solution_u(x)
        return self.dynamical_f(torch.cat([x, u], dim=1))

    def train_epochs(self, loader, epochs):
        best = float("inf")
        for _ in range(epochs):
            loss = sum(self.forward(x).pow(2).mean() for x in loader)
            if loss < best:
                best = loss
                # the tensors of a state_dict() share storage with the live parameters
                self.best_model = {"solution_u": self.solution_u.state_dict(), "dynamical_f": self.dynamical_f.state_dict()}


class Snapshot(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(x)

    def keep(self):
        self.saved = self.state_dict()
