import torch


class AnchorMixin:
    def make_anchors(self, sizes):
        self.anchors = torch.tensor(sizes, dtype=torch.float32)
