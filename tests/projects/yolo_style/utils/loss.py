# Modelled on ultralytics/yolov5 (utils/loss.py): the loss object returns the total loss for
# backward and a detached vector of its parts for logging.
import torch
import torch.nn as nn


class ComputeLoss:
    def __init__(self, model, box_gain=0.05, obj_gain=1.0, cls_gain=0.5):
        self.bce = nn.BCEWithLogitsLoss()
        self.box_gain = box_gain
        self.obj_gain = obj_gain
        self.cls_gain = cls_gain

    def __call__(self, predictions, targets):
        lbox = self.box_gain * (predictions[..., :4] - targets[..., :4]).abs().mean()
        lobj = self.obj_gain * self.bce(predictions[..., 4], targets[..., 4])
        lcls = self.cls_gain * self.bce(predictions[..., 5:], targets[..., 5:])
        batch_size = predictions.shape[0]
        return (lbox + lobj + lcls) * batch_size, torch.stack((lbox, lobj, lcls)).detach()

    def parts(self, predictions, targets):
        total, items = self(predictions, targets)
        return items, total
