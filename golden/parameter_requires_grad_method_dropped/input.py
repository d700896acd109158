"""`.requires_grad_()` marks a tensor as trained; inside nn.Parameter it is redundant."""

import torch
import torch.nn as nn


class PromptTuning(nn.Module):
    def __init__(self, num_tokens=4, dim=8):
        super().__init__()
        self.prompt = (torch.randn(num_tokens, dim) * 0.02).requires_grad_()
        self.temperature = torch.ones(1).requires_grad_(True)

    def forward(self, x):
        prompt = self.prompt.expand(x.size(0), -1, -1)
        return torch.cat([prompt, x], dim=1) / self.temperature
