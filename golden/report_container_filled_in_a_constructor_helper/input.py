"""An empty dict bound in __init__ and filled with tensors by a helper that __init__ calls,
inside a loop with a try: the tensors are constructor state the dict hides from .to()."""

import os

import numpy as np
import torch
from torch import nn


class PointLoss(nn.Module):
    def __init__(self, model_dir, device="cpu"):
        super().__init__()
        self.points = {}
        self.diameters = {}
        self.device = device
        self._load_models(model_dir)

    def _load_models(self, model_dir):
        for name in sorted(os.listdir(model_dir)):
            try:
                obj_id = int(name.split("_")[1].split(".")[0]) - 1
            except (IndexError, ValueError):
                continue
            pts = np.loadtxt(os.path.join(model_dir, name))
            self.diameters[obj_id] = float(np.max(np.linalg.norm(pts, axis=1)))
            self.points[obj_id] = torch.from_numpy(pts.astype(np.float32)).to(self.device)

    def forward(self, rotation, obj_id):
        return (self.points[obj_id] @ rotation).norm(dim=1).mean()
