import torch

_cache = {}


def load_table(n) -> torch.Tensor:
    return _cache.setdefault(("table", n), torch.ones(n, n))
