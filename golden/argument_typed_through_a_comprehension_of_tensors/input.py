"""A kept argument the class uses as a tensor is typed from the calls, and the call here hands
it over from a comprehension: `[Moments(f) for f in feats]` over `feats = [t.detach() for t in
outputs]`, each item a tensor. The moments the
constructor derives from it come back from a helper as a tensor and a list, unpacked
together: reported (BUF304, BUF301)."""

import torch
import torch.nn as nn


class Moments(nn.Module):
    def __init__(self, reference, order=3):
        super().__init__()
        self.reference = reference
        self.order = order
        self.mean, self.central = self._moments()

    def _moments(self):
        mean = self.reference.mean(dim=(0, 2), keepdim=True)
        central = [((self.reference - mean) ** k).mean(dim=(0, 2)) for k in range(2, self.order + 1)]
        return mean, central

    def forward(self, x):
        mean = x.mean(dim=(0, 2), keepdim=True)
        loss = ((mean - self.mean) ** 2).sum()
        for k, target in zip(range(2, self.order + 1), self.central):
            loss = loss + (((x - mean) ** k).mean(dim=(0, 2)) - target).pow(2).sum()
        return loss


def moment_losses(outputs):
    feats = [t.detach() for t in outputs]
    return [Moments(f, order=3) for f in feats]
