import torch
import torch.nn.functional as F
from torch import nn


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def generalized_box_iou_loss(boxes1, boxes2, eps=1e-7):
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xkis1 = torch.max(x1, x1g)
    ykis1 = torch.max(y1, y1g)
    xkis2 = torch.min(x2, x2g)
    ykis2 = torch.min(y2, y2g)
    intsct = torch.zeros_like(x1)
    mask = (ykis2 > ykis1) & (xkis2 > xkis1)
    intsct[mask] = (xkis2[mask] - xkis1[mask]) * (ykis2[mask] - ykis1[mask])
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - intsct + eps
    iou = intsct / union
    xc1 = torch.min(x1, x1g)
    yc1 = torch.min(y1, y1g)
    xc2 = torch.max(x2, x2g)
    yc2 = torch.max(y2, y2g)
    area_c = (xc2 - xc1) * (yc2 - yc1) + eps
    return 1 - (iou - ((area_c - union) / area_c))


class FCOSLoss(nn.Module):
    """Focal loss + GIoU loss with FCOS-style "inside the box" assignment.

    The normaliser is an EMA of the number of foreground locations, as in
    detectron2's RetinaNet, which makes the loss scale much less noisy with
    tiny batches.
    """

    def __init__(self, num_classes, stride, focal_alpha=0.25, focal_gamma=2.0,
                 loss_normalizer=20.0, loss_normalizer_momentum=0.9, box_weight=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.stride = stride
        self.focal_alpha = focal_alpha
        self.focal_gamma = focal_gamma
        self.loss_normalizer = loss_normalizer
        self.loss_normalizer_momentum = loss_normalizer_momentum
        self.box_weight = box_weight

    @torch.no_grad()
    def assign(self, points, targets):
        labels, reg_targets = [], []
        for t in targets:
            boxes = t["boxes"]
            x, y = points[:, 0, None], points[:, 1, None]
            l = x - boxes[None, :, 0]
            tp = y - boxes[None, :, 1]
            r = boxes[None, :, 2] - x
            b = boxes[None, :, 3] - y
            ltrb = torch.stack([l, tp, r, b], dim=2)
            inside = ltrb.min(dim=2).values > 0
            areas = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))[None].expand_as(inside).clone()
            areas[~inside] = float("inf")
            min_area, gt_idx = areas.min(dim=1)
            lab = t["labels"][gt_idx].clone()
            lab[min_area == float("inf")] = 0
            labels.append(lab)
            reg_targets.append(boxes[gt_idx])
        return torch.stack(labels), torch.stack(reg_targets)

    def forward(self, cls_logits, bbox_reg, points, targets):
        # cls_logits: [N, HW, C-1], bbox_reg: [N, HW, 4] (ltrb distances in stride units)
        gt_labels, gt_boxes = self.assign(points, targets)
        pos_mask = gt_labels > 0
        num_pos_anchors = pos_mask.sum().item()
        self.loss_normalizer = self.loss_normalizer_momentum * self.loss_normalizer + (
            1 - self.loss_normalizer_momentum
        ) * max(num_pos_anchors, 1)

        gt_classes_target = F.one_hot(gt_labels, num_classes=self.num_classes)[..., 1:].to(cls_logits.dtype)
        cls = sigmoid_focal_loss(cls_logits, gt_classes_target, self.focal_alpha, self.focal_gamma)
        cls_per_image = cls.sum(dim=(1, 2))

        distances = bbox_reg * self.stride
        pred_boxes = torch.cat([points[None] - distances[..., :2], points[None] + distances[..., 2:]], dim=-1)
        giou = generalized_box_iou_loss(pred_boxes, gt_boxes)
        box_per_image = (giou * pos_mask).sum(dim=1)

        loss_dict = {
            "loss_classifier": cls_per_image.sum() / self.loss_normalizer,
            "loss_box_reg": self.box_weight * box_per_image.sum() / self.loss_normalizer,
        }
        num_pos_per_image = pos_mask.sum(dim=1).clamp(min=1)
        per_image = (cls_per_image + self.box_weight * box_per_image) / num_pos_per_image
        return loss_dict, per_image
