"""A form feed and a line separator inside comments end no line for Python: line numbers and
columns after them are still right."""

import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        # page break  (a form feed) and   (a line separator)
        label = "été"; self.register_buffer("gain", torch.ones(2), persistent=False)
        self.register_buffer("bias", torch.zeros(2), persistent=False)

    def forward(self, x):
        return x * self.gain + self.bias
