import torch
from torch import nn
from lightly_like import knn_predict


class KNNBenchmark(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.all_preds = []
        self.all_targets = []

    def validation_step(self, batch, idx):
        img, target = batch
        pred_labels = knn_predict(self.backbone(img))
        self.all_preds.append(pred_labels[:, 0])
        self.all_targets.append(target)

    def on_validation_epoch_end(self):
        preds = torch.cat(self.all_preds, dim=0)
        targets = torch.cat(self.all_targets, dim=0)
        self.all_preds.clear()
        self.all_targets.clear()
        return (preds == targets).float().mean()
