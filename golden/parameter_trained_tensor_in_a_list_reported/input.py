"""Architecture weights trained by an optimizer of their own, which gets them from a list:
as nn.Parameter they would also be trained by the model's optimizer.  Reported even under
persistent = "state"."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class SearchNetwork(nn.Module):
    def __init__(self, edges, ops):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.alphas_normal = Variable(1e-3 * torch.randn(edges, ops), requires_grad=True)
        self.alphas_reduce = Variable(1e-3 * torch.randn(edges, ops), requires_grad=True)
        self._arch_parameters = [self.alphas_normal, self.alphas_reduce]
        self.temperature = torch.ones(1, requires_grad=True)  # trained with the model

    def arch_parameters(self):
        return self._arch_parameters

    def forward(self, x):
        weights = torch.softmax(self.alphas_normal, dim=-1)
        return self.stem(x) * weights.sum() / self.temperature
