"""A cast that changes the dtype of an nn.Parameter made on the spot
(`nn.Parameter(torch.FloatTensor(k, n)).double().to(device)`) returns a plain copy: the
parameter itself is registered nowhere, so no optimizer trains the weight the code means to
learn. Each such attribute is reported with how to mend it. A cast to the dtype the tensor
already has hands back the Parameter itself, which is registered and left alone."""

import torch
import torch.nn as nn


class SpatialConv(nn.Module):
    def __init__(self, ks, c_in, c_out, device="cpu"):
        super().__init__()
        self.theta = nn.Parameter(torch.FloatTensor(ks * c_in, c_out)).double().to(device)
        self.bias = nn.Parameter(torch.zeros(c_out)).half()
        self.scale = nn.Parameter(torch.ones(c_out)).float()
        self.table = nn.Parameter(torch.ones(c_out, dtype=torch.float64)).double()
        nn.init.uniform_(self.theta.data, -0.1, 0.1)

    def forward(self, x):
        out = x.double() @ self.theta + self.bias.double()
        return out * self.scale.double() * self.table
