# Builds hyunwoongko/transformer's Transformer as train.py does (conf.py's values, 2 layers, small vocabularies), one forward.
import os
import sys

sys.path.insert(0, os.getcwd())
import torch
from models.model.transformer import Transformer

torch.manual_seed(0)
m = Transformer(
    src_pad_idx=1,
    trg_pad_idx=1,
    trg_sos_idx=2,
    d_model=512,
    enc_voc_size=100,
    dec_voc_size=120,
    max_len=256,
    ffn_hidden=2048,
    n_head=8,
    n_layers=2,
    drop_prob=0.1,
    device=torch.device("cpu"),
)
src, trg = torch.randint(3, 100, (2, 10)), torch.randint(3, 120, (2, 9))
print(m(src, trg).shape)
