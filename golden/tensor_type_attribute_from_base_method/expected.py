"""A pix2pix-style model: the base's `initialize` (not `__init__`) binds `self.Tensor` to a
tensor type, and the subclass's methods make tensors by calling it."""

import torch
import torch.nn as nn


class BaseModel(nn.Module):
    def initialize(self, opt):
        self.opt = opt
        self.gpu_ids = opt.gpu_ids
        self.Tensor = torch.cuda.FloatTensor if self.gpu_ids else torch.Tensor


class TestModel(BaseModel):
    def initialize(self, opt):
        BaseModel.initialize(self, opt)
        self.input_A = self.Tensor(opt.batchSize, opt.input_nc, opt.fineSize, opt.fineSize)
        self.netG = nn.Conv2d(opt.input_nc, opt.input_nc, 3, padding=1)

    def set_input(self, input):
        self.input_A.resize_(input.size()).copy_(input)

    def forward(self):
        return self.netG(self.input_A)
