# The iOS wrapper of yolov5's export.py (export_coreml's `iOSModel(model, im)` with nms) around a model built from
# models/yolov5n.yaml, with export.py's default --imgsz 640 640 and a rectangular 640x320 image, one forward each.
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: E402,F401  (torchvision: see _tvstub.py)
import torch
from models.yolo import Model
from export import iOSModel

torch.manual_seed(0)
model = Model("models/yolov5n.yaml").eval()
model.nc = model.yaml["nc"]  # as train.py attaches it
for h, w in ((640, 640), (320, 640)):
    im = torch.zeros(1, 3, h, w)
    model(im)
    ios = iOSModel(model, im).eval()
    print([t.shape for t in ios(im)])
