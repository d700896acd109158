import torch

from input import ContextAwareLoss, Settings


def main():
    settings = Settings(framerate=2)
    return ContextAwareLoss(K=settings.K_parameters)
