"""A vector quantiser that keeps, per codebook group, the inputs and the indices its forward
sees, for a codebook update that reads them later: a list of lists, empty at construction and
filled with tensors (`self.saved_input[g].append(x_g)`). A list holds no buffer, and its
tensors are neither moved by .to() nor saved: reported."""

import torch
import torch.nn as nn


class VectorQuantizer(nn.Module):
    def __init__(self, codebook_size=16, codebook_dim=8, num_groups=2):
        super().__init__()
        self.num_groups = num_groups
        self.register_buffer("codebook", torch.randn(num_groups, codebook_size, codebook_dim // num_groups))
        self.saved_input = [[] for _ in range(num_groups)]
        self.saved_indices = [[] for _ in range(num_groups)]

    def forward(self, x):
        batch, steps, width = x.shape
        grouped = x.view(batch, steps, self.num_groups, width // self.num_groups)
        quantized = torch.empty_like(grouped)
        for g, group in enumerate(self.codebook):
            x_g = grouped[:, :, g, :]
            self.saved_input[g].append(x_g)
            indices = torch.cdist(x_g, group.unsqueeze(0).expand(batch, -1, -1)).argmin(dim=-1)
            self.saved_indices[g].append(indices)
            quantized[:, :, g, :] = group[indices]
        return quantized.view(batch, steps, width)
