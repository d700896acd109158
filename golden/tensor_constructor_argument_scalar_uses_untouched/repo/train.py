import torch

from input import ClassWeights, Loss, Mixed, TopK

top = TopK(3, 0.0, 0.5)
top_named = TopK(k=5, lo=-1.0, threshold=0.1)
plain = Loss()
no_weight = Loss(None, reduction="sum")
listed = ClassWeights([1.0, 2.0])
mixed = [Mixed(torch.eye(2)), Mixed([[1.0, 0.0], [0.0, 1.0]])]
