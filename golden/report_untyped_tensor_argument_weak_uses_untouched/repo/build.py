import pickle

import torch
import torch.nn as nn

from input import Normalise, Scaled, Shared, Summed, TopK

saved = pickle.load(open("stats.pkl", "rb"))
norm = Normalise(saved["mean"], saved["std"])
summed = Summed(saved["table"], "a,b")
top = TopK(saved["k"])
shared = Shared(nn.Parameter(torch.ones(3, 3)))
scaled = Scaled(saved["scale"])
half = Scaled(0.5)
