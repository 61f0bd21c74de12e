# Modelled on ultralytics/yolov5 (models/yolo.py): the detection model, an nn.Module.
import torch.nn as nn


class DetectionModel(nn.Module):
    def __init__(self, channels=3, classes=80):
        super().__init__()
        self.backbone = nn.Conv2d(channels, 64, 3)
        self.head = nn.Conv2d(64, 5 + classes, 1)

    def forward(self, x):
        return self.head(self.backbone(x)).flatten(2).transpose(1, 2)
