import torch

from codemod.examples import example

example("input.Embeddings", 5, 3, max_len=64, inputs=lambda: (torch.randint(0, 5, (2, 9)),))
