# The README's "Masked Patch Prediction" example, verbatim except 2 steps of 2 images instead of 100 of 20.
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: E402,F401  (torchvision: see _tvstub.py)
import torch
from vit_pytorch import ViT
from vit_pytorch.mpp import MPP

model = ViT(
    image_size=256,
    patch_size=32,
    num_classes=1000,
    dim=1024,
    depth=6,
    heads=8,
    mlp_dim=2048,
    dropout=0.1,
    emb_dropout=0.1,
)
mpp_trainer = MPP(transformer=model, patch_size=32, dim=1024, mask_prob=0.15, random_patch_prob=0.30, replace_prob=0.50)
opt = torch.optim.Adam(mpp_trainer.parameters(), lr=3e-4)


def sample_unlabelled_images():
    return torch.FloatTensor(2, 3, 256, 256).uniform_(0.0, 1.0)


for _ in range(2):
    images = sample_unlabelled_images()
    loss = mpp_trainer(images)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss)
