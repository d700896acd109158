# Builds MTGNN's gtnet with train_multi_step.py's defaults (20 nodes), one forward.
import os
import sys

sys.path.insert(0, os.getcwd())
import torch
from net import gtnet

torch.manual_seed(0)
n = 20
m = gtnet(
    True,
    True,
    2,
    n,
    "cpu",
    predefined_A=None,
    dropout=0.3,
    subgraph_size=5,
    node_dim=40,
    dilation_exponential=1,
    conv_channels=32,
    residual_channels=32,
    skip_channels=64,
    end_channels=128,
    seq_length=12,
    in_dim=2,
    out_dim=12,
    layers=3,
    propalpha=0.05,
    tanhalpha=3,
    layer_norm_affline=True,
)
print(m(torch.randn(2, 2, n, 12)).shape)
