"""A toy single-object "detector": classify the object and regress its box."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from d2lite.utils.events import get_event_storage

from .backbone import build_backbone
from .regularizers import InputGradientPenalty


class TinyDetector(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = build_backbone(cfg)
        c = self.backbone.out_channels
        self.cls_head = nn.Linear(c, cfg.MODEL.NUM_CLASSES)
        self.box_head = nn.Linear(c, 4)
        self.register_buffer("pixel_mean", torch.tensor(cfg.MODEL.PIXEL_MEAN).view(-1, 1, 1), False)
        self.register_buffer("pixel_std", torch.tensor(cfg.MODEL.PIXEL_STD).view(-1, 1, 1), False)
        self.vis_period = cfg.MODEL.VIS_PERIOD
        self.grad_penalty = None
        if cfg.MODEL.INPUT_GRAD_PENALTY > 0:
            self.grad_penalty = InputGradientPenalty(cfg.MODEL.INPUT_GRAD_PENALTY)

    @property
    def device(self):
        return self.pixel_mean.device

    def preprocess_image(self, batched_inputs):
        images = [(x["image"].to(self.device) - self.pixel_mean) / self.pixel_std for x in batched_inputs]
        return torch.stack(images, 0)

    def forward(self, batched_inputs):
        images = self.preprocess_image(batched_inputs)
        if not self.training:
            return self.inference(images)
        if self.grad_penalty is not None:
            images.requires_grad_(True)
        gt_classes = torch.tensor([x["gt_class"] for x in batched_inputs], device=self.device)
        gt_boxes = torch.stack([x["gt_box"] for x in batched_inputs]).to(self.device)

        features = self.backbone(images)
        pooled = features.mean((2, 3))
        pred_class_logits = self.cls_head(pooled)
        pred_boxes = self.box_head(pooled)

        loss_cls = F.cross_entropy(pred_class_logits, gt_classes)
        loss_box_reg = F.smooth_l1_loss(pred_boxes, gt_boxes, beta=0.1)
        losses = {"loss_cls": loss_cls, "loss_box_reg": loss_box_reg}
        if self.grad_penalty is not None:
            losses["loss_input_grad"] = self.grad_penalty(loss_cls, images)

        self._log_classification_stats(pred_class_logits, gt_classes)
        storage = get_event_storage()
        storage.put_scalar("box_head/pred_box_l1", (pred_boxes - gt_boxes).abs().mean())
        return losses

    def _log_classification_stats(self, pred_logits, gt_classes, prefix="fast_rcnn"):
        num_instances = gt_classes.numel()
        if num_instances == 0:
            return
        pred_classes = pred_logits.argmax(dim=1)
        num_accurate = (pred_classes == gt_classes).nonzero().numel()
        storage = get_event_storage()
        storage.put_scalar(f"{prefix}/cls_accuracy", num_accurate / num_instances)

    def inference(self, images):
        features = self.backbone(images)
        pooled = features.mean((2, 3))
        return {"scores": self.cls_head(pooled).softmax(-1), "boxes": self.box_head(pooled)}


def build_model(cfg):
    model = TinyDetector(cfg)
    model.to(torch.device("cpu"))
    return model
