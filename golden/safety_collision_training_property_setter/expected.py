import torch
import torch.nn as nn


class Propagate(nn.Module):
    """A training property whose setter drops a cached kernel: nn.Module.__init__ sets
    self.training, so the setter binds zernike_eval before the constructor's body runs."""

    def __init__(self, n=4):
        super().__init__()
        self.coeffs = nn.Parameter(torch.zeros(n))
        self.register_buffer("zernike", torch.ones(n, n), persistent=False)
        self.zernike_eval = torch.zeros(n)

    @property
    def training(self):
        return self._training

    @training.setter
    def training(self, mode):
        if mode:
            self.zernike_eval = None  # reset when switching to training
        self._training = mode

    def forward(self, x):
        return x @ self.zernike + self.coeffs
