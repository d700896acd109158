"""How nn.Module copies itself for DataParallel: buffers are shallow-copied per replica."""

from collections import OrderedDict

import torch.nn as nn


def _replicate_for_data_parallel(self):
    replica = self.__new__(type(self))
    replica.__dict__ = self.__dict__.copy()

    # replicas do not have parameters themselves, the replicas reference the original
    # module.
    replica._parameters = OrderedDict()
    replica._buffers = replica._buffers.copy()
    replica._modules = replica._modules.copy()
    replica._is_replica = True

    return replica


class Scale(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.lin = nn.Linear(features, features)

    def forward(self, x):
        return self.lin(x)


if __name__ == "__main__":
    replica = _replicate_for_data_parallel(Scale())
    print(replica._is_replica, list(replica._buffers))
