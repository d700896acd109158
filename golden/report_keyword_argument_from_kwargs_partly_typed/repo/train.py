import torch

from data import Statistics
from input import PanSharpener


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    stats = Statistics()
    return PanSharpener(3, mean=stats.mean.to(device), std=stats.std.to(device)).to(device)
