"""A constructor argument that forward reads through a local alias (`K = self.K`) and hands
on with its inputs; the training script passes an attribute of a settings object that its
constructor computes from a tensor."""

import torch

K_V2 = torch.FloatTensor([[-20, -20], [-10, -10], [60, 10], [90, 20]])


class Settings:
    def __init__(self, framerate=2):
        self.K_parameters = K_V2 * framerate


class ContextAwareLoss(torch.nn.Module):
    def __init__(self, K, hit_radius=0.1):
        super().__init__()
        self.K = K
        self.hit_radius = float(hit_radius)

    def forward(self, gt_label, pred_score):
        K = self.K
        return self.down_step(gt_label, K[0]) * pred_score

    def down_step(self, x, a):
        return torch.max(0.0 * x, torch.sign(a - x))
