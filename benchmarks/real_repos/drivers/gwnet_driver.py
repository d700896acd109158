# Builds Graph-WaveNet's gwnet as train.py/engine.py do (defaults of train.py, 20 nodes), with and without aptinit, one forward.
import os
import sys

sys.path.insert(0, os.getcwd())
import torch
from model import gwnet

torch.manual_seed(0)
n = 20
adj = torch.rand(n, n)
adj = adj / adj.sum(1, keepdim=True)
supports = [adj, adj.t().contiguous()]
x = torch.randn(2, 2, n, 13)
for aptinit in (None, adj):
    m = gwnet(
        "cpu",
        n,
        0.3,
        supports=supports,
        gcn_bool=True,
        addaptadj=True,
        aptinit=aptinit,
        in_dim=2,
        out_dim=12,
        residual_channels=32,
        dilation_channels=32,
        skip_channels=256,
        end_channels=512,
    )
    try:
        print(m(x).shape)
    except RuntimeError as e:  # Conv1d on 4-D input: broken on torch >= 1.x in this repository
        print("forward failed:", str(e)[:80])
