import numpy as np


def make_batch(n, *values):
    indices = np.random.permutation(len(values[0]))[:n]
    return [value[indices] for value in values]


def to_numpy(x):
    return np.squeeze(x.cpu().numpy())
