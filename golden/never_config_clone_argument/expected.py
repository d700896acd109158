import torch.nn as nn


class TestTimeAugmentation(nn.Module):
    """`cfg.clone()` is a configuration's copy (yacs, detectron2's CfgNode), not a tensor's:
    the kept argument is no untyped tensor."""

    def __init__(self, cfg, model):
        super().__init__()
        self.cfg = cfg.clone()
        self.model = model

    def forward(self, x):
        return self.model(x)
