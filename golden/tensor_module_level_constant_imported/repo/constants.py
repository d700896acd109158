import torch

K_MATRIX = torch.FloatTensor([[-2], [-1], [1], [2]])
NUM_CLASSES = 17
