"""`torch.sparse.torch.eye(n)`: a torch submodule's own `torch` attribute is torch itself, so
this is `torch.eye(n)`, an identity table that one-hot code copied across many repositories
builds this way. Both branches of the constructor's `if` bind it, and both are rewritten;
the device move is kept."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class OneHot(nn.Module):
    def __init__(self, depth, use_gpu=False):
        super(OneHot, self).__init__()
        self.depth = depth
        if use_gpu:
            self.register_buffer(
                "ones", torch.sparse.torch.eye(depth).cuda(), persistent=False
            )
        else:
            self.register_buffer(
                "ones", torch.sparse.torch.eye(depth), persistent=False
            )

    def forward(self, x):
        n_dim = x.dim()
        output_size = x.size() + torch.Size([self.depth])
        flat = x.data.long().view(x.numel())
        out = Variable(self.ones.index_select(0, flat)).view(output_size)
        return out.permute(0, -1, *range(1, n_dim)).float()
