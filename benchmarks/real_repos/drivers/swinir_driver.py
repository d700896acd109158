# Builds SwinIR with main_test_swinir.py's lightweight_sr (x2) and gray_dn settings (smaller depth), one forward each.
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: E402,F401  (torchvision: see _tvstub.py)
import torch
from models.network_swinir import SwinIR

torch.manual_seed(0)
m = SwinIR(
    upscale=2,
    in_chans=3,
    img_size=64,
    window_size=8,
    img_range=1.0,
    depths=[2, 2],
    embed_dim=60,
    num_heads=[6, 6],
    mlp_ratio=2,
    upsampler="pixelshuffledirect",
    resi_connection="1conv",
)
print(m(torch.rand(1, 3, 32, 32)).shape)
m = SwinIR(
    upscale=1,
    in_chans=1,
    img_size=128,
    window_size=8,
    img_range=1.0,
    depths=[2, 2],
    embed_dim=60,
    num_heads=[6, 6],
    mlp_ratio=2,
    upsampler="",
    resi_connection="1conv",
)
print(m(torch.rand(1, 1, 32, 32)).shape)
