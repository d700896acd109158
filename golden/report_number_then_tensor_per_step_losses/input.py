import torch
import torch.nn.functional as F
from torch import nn


class Trainer(nn.Module):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.netG = generator
        self.netD = discriminator
        self.loss_G = 0
        self.loss_D, self.loss_D_real = 0, 0
        self.epoch = 0

    def backward_D(self, real, fake):
        self.loss_D_real = torch.mean(F.relu(1.0 - self.netD(real)))
        self.loss_D = self.loss_D_real + torch.mean(F.relu(1.0 + self.netD(fake.detach())))
        self.loss_D.backward()

    def backward_G(self, fake):
        self.loss_G = -torch.mean(self.netD(fake))
        self.loss_G.backward()
        self.epoch += 1
