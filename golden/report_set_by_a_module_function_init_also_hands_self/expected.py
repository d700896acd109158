"""A function of the module that __init__ hands self to under a flag, and forward otherwise
(the grids of a YOLO layer): its tensors are reported, never left unsaid."""

import torch
import torch.nn as nn

ONNX_EXPORT = False


class YOLOLayer(nn.Module):
    def __init__(self, anchors=((10, 13), (16, 30)), img_size=(64, 64)):
        super().__init__()
        self.anchors = [list(a) for a in anchors]
        self.nx = 0
        if ONNX_EXPORT:  # grids must be computed in __init__
            create_grids(self, img_size, (img_size[0] // 16, img_size[1] // 16))

    def forward(self, p, img_size=(64, 64)):
        if self.nx != p.shape[-1]:
            create_grids(self, img_size, (p.shape[-1], p.shape[-2]), p.device)
        return p * self.anchor_wh.sum() + self.grid_xy.sum()


def create_grids(self, img_size, ng, device="cpu"):
    self.nx, ny = ng
    self.stride = max(img_size) / max(ng)
    self.grid_xy = torch.arange(self.nx * ny).float().to(device)
    self.anchor_wh = torch.tensor(self.anchors).to(device) / self.stride
