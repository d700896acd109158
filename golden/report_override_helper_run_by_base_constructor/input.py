"""A tensor set by a helper of an override that the base constructor calls
(`DDPM.__init__` -> `self.register_schedule()` -> `LatentDiffusion.make_cond_schedule`) is set
before the subclass's own __init__ body: no registration in __init__ is suggested (it would
raise KeyError, the attribute already exists)."""

import torch
import torch.nn as nn


class DDPM(nn.Module):
    def __init__(self, timesteps=10):
        super().__init__()
        self.num_timesteps = timesteps
        self.register_schedule()

    def register_schedule(self):
        self.register_buffer("betas", torch.linspace(1e-4, 2e-2, self.num_timesteps), persistent=False)


class LatentDiffusion(DDPM):
    def __init__(self, timesteps=10, cond_steps=3):
        self.cond_steps = cond_steps
        super().__init__(timesteps)
        self.scale = 1.0

    def register_schedule(self):
        super().register_schedule()
        self.make_cond_schedule()

    def make_cond_schedule(self):
        self.cond_ids = torch.full((self.num_timesteps,), self.num_timesteps - 1, dtype=torch.long)
        self.cond_ids[: self.cond_steps] = torch.arange(self.cond_steps)

    def forward(self, t):
        return self.cond_ids[t] * self.scale
