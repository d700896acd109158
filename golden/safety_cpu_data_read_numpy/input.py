"""Values read from a tensor that end in Tensor.numpy() take only CPU data: the plain
attribute stays on the CPU when the model is moved, a buffer would not (BUF218).  A float
tensor's `.cpu().numpy()` counts too: numpy has no bfloat16, which model.to(torch.bfloat16)
would make a float buffer.  Reads that leave tensors (`.item()`, `.tolist()`), and an
integer tensor brought to the host (never cast), are fine as buffers."""

import numpy as np
import torch
import torch.nn as nn


class Histogram(nn.Module):
    def __init__(self, bins=8):
        super().__init__()
        self.edges = torch.linspace(0, 1, bins + 1)
        self.fc = nn.Linear(bins, 2)

    def forward(self, x):
        edges = self.edges[1:-1]
        counts = np.histogram(x.detach().cpu().numpy(), bins=edges.numpy())[0]
        return self.fc(torch.as_tensor(counts, dtype=torch.float32, device=x.device))


class HostCopy(nn.Module):
    def __init__(self, bins=8):
        super().__init__()
        self.edges = torch.linspace(0, 1, bins + 1)
        self.fc = nn.Linear(bins, 2)

    def forward(self, x):
        bounds = self.edges.cpu().numpy()
        return self.fc(x) + float(bounds[0])


class HostRead(nn.Module):
    def __init__(self, bins=8):
        super().__init__()
        self.edges = torch.linspace(0, 1, bins + 1)
        self.order = torch.arange(bins, dtype=torch.long)
        self.fc = nn.Linear(bins, 2)

    def forward(self, x):
        first = self.order.cpu().numpy()[0]
        return self.fc(x)[:, :2] + self.edges[0].item() + sum(self.edges.tolist()) + float(first)


class Outputs(nn.Module):
    """A dict that holds a value made from the tensor and, under another key, the lengths
    handed to torch.LongTensor: the dict is not the value, and the offset is rewritten."""

    def __init__(self, n=4):
        super().__init__()
        self.offset = torch.linspace(0, 1, n)
        self.fc = nn.Linear(n, n)

    def forward(self, x, lengths):
        out = {}
        out["shifted"] = self.fc(x) + self.offset
        out["lengths"] = lengths
        kept = torch.LongTensor(out["lengths"])
        return out["shifted"][: len(kept)]
