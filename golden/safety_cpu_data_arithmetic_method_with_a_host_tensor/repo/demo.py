import torch

from input import Completion


def main(m, n):
    ratings = torch.rand(m, n)
    mask = torch.zeros(m, n)
    return Completion(ratings, mask, torch.FloatTensor([1, 1, 1]))
