import pickle

from input import Chebyshev, GraphConv, Masked, SparseProp, TargetConv

with open("graph.pkl", "rb") as f:
    saved = pickle.load(f)


class Config:
    support = saved["support"]


graph = GraphConv(saved["adj"], 16)
sparse = SparseProp(Config())
cheb = Chebyshev(saved["supports"], 16)
params = saved["hyper"]
target = TargetConv(params["w"], params["b"])
masked = Masked(saved["mask"])
