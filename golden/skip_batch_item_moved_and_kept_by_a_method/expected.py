"""A pix2pix-style set_input keeps parts of the batch it is handed, moved to a device: per-call
tensors, reported; a part the class calls (a module handed in) and a part never moved are not."""

import torch.nn as nn


class BaseModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.real_A = None
        self.masks = None
        self.scale_by = 1.0

    def set_input(self, input):
        self.real_A = self.scale_by * input["A"].to(self.config.device)
        self.masks = input["masks"].to(self.config.device)
        self.netD = input["discriminator"].to(self.config.device)
        self.name = input["name"]

    def forward(self):
        return self.netD(self.real_A) * self.masks

    def set_dates(self, input):
        self.dates = None if input["dates"] is None else input["dates"].to(self.config.device)

    def reset_input(self):
        self.real_A = None
        del self.real_A

    def rescale(self):
        self.real_A = 1 / self.scale_by * self.real_A
