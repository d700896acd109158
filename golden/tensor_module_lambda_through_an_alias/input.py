"""A tensor made by a module-level lambda of another module, through a local alias
(`_to_tensor = numpy_to_tensor`, where helpers/convert.py binds
`numpy_to_tensor = lambda x: to_float(torch.from_numpy(x))`): its calls are typed from the
lambda's body, as a function's would be. A lambda that returns an array
(`tensor_to_numpy`) gives no tensor."""

import numpy as np
import torch
import torch.nn as nn

from helpers.convert import numpy_to_tensor, tensor_to_numpy

_to_tensor = numpy_to_tensor


class ShapeLoss(nn.Module):
    def __init__(self, basis=np.eye(3, dtype=np.float32), mean=np.zeros(3, dtype=np.float32)):
        super().__init__()
        self.basis = _to_tensor(basis)
        self.mean = _to_tensor(mean)
        self.mean_host = tensor_to_numpy(self.mean)

    def forward(self, alpha, target):
        shape = self.basis @ alpha + self.mean
        return ((shape - target) ** 2).mean()
