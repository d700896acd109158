import torch

from input import CausalMask, DeepGraph, Graph, NamedGraph

m = Graph(torch.LongTensor([[0, 1]]).t(), torch.LongTensor([0, 1]), params=None)
named = NamedGraph(torch.LongTensor([[1, 0]]).t(), torch.LongTensor([1, 1]))
deep = DeepGraph(torch.tensor([[0], [1]]), torch.tensor([1, 0]))
causal = CausalMask(torch.ones(2, 2, dtype=torch.bool).triu(1))
