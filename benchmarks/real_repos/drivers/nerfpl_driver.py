# Builds nerf_pl's embeddings and NeRF as train.py's NeRFSystem does, and renders a few rays through them.
import os
import sys

sys.path.insert(0, os.getcwd())
import torch
from models.nerf import Embedding, NeRF

torch.manual_seed(0)
exyz, edir = Embedding(3, 10), Embedding(3, 4)
nerf = NeRF()
xyz, d = torch.rand(64, 3), torch.rand(64, 3)
print(nerf(torch.cat([exyz(xyz), edir(d)], -1)).shape)
