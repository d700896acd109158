import torch
import torch.nn as nn


class Deterministic(nn.Module):
    """A reversible block records the CPU generator's state in forward and restores it when the
    backward pass runs it again: torch.set_rng_state takes only a CPU ByteTensor, so the
    state must not follow the model to the GPU (an empty buffer slot would move it)."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.cpu_state = None

    def record_rng(self):
        self.cpu_state = torch.get_rng_state()

    def forward(self, x, record_rng=False, set_rng=False):
        if record_rng:
            self.record_rng()
        if not set_rng:
            return self.net(x)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(self.cpu_state)
            return self.net(x)
