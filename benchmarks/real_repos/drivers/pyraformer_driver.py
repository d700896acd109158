# Pyraformer's single-step model cannot be imported on torch 2.x (pyraformer/Layers.py imports
# torch.functional.align_tensors, removed), so this builds what Pyraformer_SS.Encoder builds from embed.py:
# SingleStepEmbedding with single_step_main.py's defaults for 'elect' (smaller d_model), one forward.
import os
import sys

sys.path.insert(0, os.getcwd())
import torch
from pyraformer.embed import SingleStepEmbedding

torch.manual_seed(0)
covariate_size, num_seq, d_model, input_size = 3, 370, 64, 169
m = SingleStepEmbedding(covariate_size, num_seq, d_model, input_size, torch.device("cpu"))
data = torch.randn(2, input_size, covariate_size + 2)
data[:, :, -1] = 3
print(m(data).shape)
