# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import torch
import torch.nn as nn
import torch.nn.functional as F


class PseudoLabRPN(nn.Module):
    """One anchor per feature location; objectness + box deltas, as in the ubteacher RPN."""

    def __init__(self, in_channels, loss_weight=1.0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, kernel_size=3, padding=1)
        self.objectness_logits = nn.Conv2d(in_channels, 1, kernel_size=1)
        self.anchor_deltas = nn.Conv2d(in_channels, 4, kernel_size=1)
        self.loss_weight = loss_weight

    def forward(self, images, features, gt_instances=None, compute_loss=True, compute_val_loss=False):
        feat = features["p2"]
        t = F.relu(self.conv(feat))
        # (N, R) objectness and (N, R, 4) deltas, R = H * W anchors
        pred_objectness_logits = self.objectness_logits(t).flatten(1)
        pred_anchor_deltas = self.anchor_deltas(t).flatten(2).transpose(1, 2)

        proposals = [
            {"objectness_logits": logits_i, "proposal_deltas": deltas_i}
            for logits_i, deltas_i in zip(pred_objectness_logits, pred_anchor_deltas)
        ]

        if (self.training and compute_loss) or compute_val_loss:
            losses = self.losses(pred_objectness_logits, pred_anchor_deltas, gt_instances)
            losses = {k: v * self.loss_weight for k, v in losses.items()}
        else:
            losses = {}
        return proposals, losses

    def losses(self, pred_objectness_logits, pred_anchor_deltas, gt_instances):
        gt_classes = torch.stack([x["gt_classes"] for x in gt_instances])
        gt_boxes = torch.stack([x["gt_boxes"] for x in gt_instances])
        num_classes = gt_instances[0]["num_classes"]
        gt_objectness = (gt_classes != num_classes).float()
        loss_rpn_cls = F.binary_cross_entropy_with_logits(pred_objectness_logits, gt_objectness)
        fg = gt_objectness.bool()
        if fg.any():
            loss_rpn_loc = F.smooth_l1_loss(pred_anchor_deltas[fg], gt_boxes[fg], beta=0.0)
        else:
            loss_rpn_loc = pred_anchor_deltas.sum() * 0.0
        return {"loss_rpn_cls": loss_rpn_cls, "loss_rpn_loc": loss_rpn_loc}
