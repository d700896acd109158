import torch

from codemod.examples import example_factory


def _uniform():
    from embedding import Word2Vec
    from input import Uniform

    return Uniform(Word2Vec(), n=6)


example_factory("input.Uniform", _uniform, inputs=lambda: (torch.zeros(2, dtype=torch.long),))
