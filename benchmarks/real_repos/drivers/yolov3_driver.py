# Builds PyTorch-YOLOv3's Darknet from config/yolov3-tiny.cfg through pytorchyolo.models.load_model, forward in eval and train mode.
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: E402,F401  (torchvision: see _tvstub.py)
import torch
from pytorchyolo.models import load_model

torch.manual_seed(0)
m = load_model("config/yolov3-tiny.cfg")
m.eval()
print(m(torch.rand(1, 3, 320, 320)).shape)
m.train()
print([t.shape for t in m(torch.rand(1, 3, 320, 320))])
