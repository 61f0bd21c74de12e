# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import torch
import torch.nn as nn
import torch.nn.functional as F


class FastRCNNOutputLayers(nn.Module):
    def __init__(self, input_dim, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(input_dim, num_classes + 1)
        self.bbox_pred = nn.Linear(input_dim, 4)
        self.num_classes = num_classes

    def forward(self, x):
        return self.cls_score(x), self.bbox_pred(x)

    def losses(self, predictions, gt_classes, gt_boxes):
        scores, proposal_deltas = predictions
        loss_cls = F.cross_entropy(scores, gt_classes, reduction="mean")
        fg = gt_classes < self.num_classes
        if fg.any():
            loss_box_reg = F.smooth_l1_loss(proposal_deltas[fg], gt_boxes[fg], beta=0.0)
        else:
            loss_box_reg = proposal_deltas.sum() * 0.0
        return {"loss_cls": loss_cls, "loss_box_reg": loss_box_reg}

    def predict_probs(self, predictions):
        scores, _ = predictions
        return F.softmax(scores, dim=-1)


class StandardROIHeadsPseudoLab(nn.Module):
    """ROI heads with a running per-class confidence used for class-aware pseudo-label thresholds."""

    def __init__(self, in_channels, hidden_dim, num_classes, score_ema_momentum=0.9):
        super().__init__()
        self.num_classes = num_classes
        self.box_head = nn.Sequential(
            nn.Linear(in_channels, hidden_dim), nn.ReLU(inplace=False),
            nn.Linear(hidden_dim, hidden_dim), nn.ReLU(inplace=False),
        )
        self.box_predictor = FastRCNNOutputLayers(hidden_dim, num_classes)
        self.score_ema_momentum = score_ema_momentum
        self.register_buffer("class_score_ema", torch.full((num_classes,), 0.5))

    def _pool(self, features, proposals):
        # every anchor location is its own RoI: (N*R, C)
        feat = features["p2"]
        return feat.flatten(2).transpose(1, 2).reshape(-1, feat.shape[1])

    def forward(self, images, features, proposals, targets=None, compute_loss=True,
                branch="", compute_val_loss=False):
        box_features = self.box_head(self._pool(features, proposals))
        predictions = self.box_predictor(box_features)

        if (self.training and compute_loss) or compute_val_loss:
            gt_classes = torch.cat([t["gt_classes"] for t in targets])
            gt_boxes = torch.cat([t["gt_boxes"] for t in targets])
            losses = self.box_predictor.losses(predictions, gt_classes, gt_boxes)
            if branch == "supervised" and self.training:
                self._update_class_confidence(predictions, gt_classes)
            return [], losses, predictions

        pred_instances = self._inference(predictions, len(proposals))
        return pred_instances, {}, predictions

    def _update_class_confidence(self, predictions, gt_classes):
        """Running mean of the student's confidence on labeled foreground, per class."""
        probs = self.box_predictor.predict_probs(predictions)
        fg = gt_classes < self.num_classes
        if not fg.any():
            return
        onehot = F.one_hot(gt_classes[fg], self.num_classes + 1)[:, : self.num_classes].float()
        per_class = (probs[fg, : self.num_classes] * onehot).sum(0) / onehot.sum(0).clamp(min=1.0)
        seen = onehot.sum(0) > 0
        m = self.score_ema_momentum
        batch_conf = torch.where(seen, per_class, self.class_score_ema)
        self.class_score_ema = m * self.class_score_ema + (1.0 - m) * batch_conf  # expect: TLK103

    def class_thresholds(self, base_threshold):
        # higher bar for classes the student is already confident on
        return torch.clamp(self.class_score_ema, min=base_threshold, max=0.95)

    def _inference(self, predictions, num_images):
        probs = self.box_predictor.predict_probs(predictions)
        scores, pred_classes = probs[:, : self.num_classes].max(dim=-1)
        _, deltas = predictions
        scores = scores.view(num_images, -1)
        pred_classes = pred_classes.view(num_images, -1)
        deltas = deltas.view(num_images, -1, 4)
        return [
            {"scores": s, "pred_classes": c, "pred_boxes": d}
            for s, c, d in zip(scores, pred_classes, deltas)
        ]
