from torch import nn


class Pendulum(nn.Module):
    """A length handed in as a physical quantity (a units library's value has .to() too) and
    converted to metres, then used in arithmetic: nothing says it is a tensor."""

    def __init__(self, length, dim=8):
        super().__init__()
        self.length = length.to("m")
        self.net = nn.Linear(dim, dim)

    def period_scale(self):
        return self.length * 2

    def forward(self, x):
        return self.net(x) * float(self.period_scale().magnitude)


def build(quantity):
    return Pendulum(quantity)
