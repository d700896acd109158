# Builds pixel-nerf's positional encoding and MLP from conf/default.conf's model.code / model.mlp_coarse, one forward.
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: E402,F401  (torchvision: see _tvstub.py)
import torch
from pyhocon import ConfigFactory
from model.code import PositionalEncoding
from model.resnetfc import ResnetFC

torch.manual_seed(0)
conf = ConfigFactory.parse_file("conf/default.conf")
code = PositionalEncoding.from_conf(conf["model"]["code"], d_in=3)
mlp = ResnetFC.from_conf(conf["model"]["mlp_coarse"], code.d_out, d_latent=0)
print(mlp(code(torch.rand(16, 3))).shape)
