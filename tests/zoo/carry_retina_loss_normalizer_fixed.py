# Source: https://github.com/open-mmlab/mmdetection/pull/2780
# Shape: the EMA normalizer is updated from the detached soft positive count, so the buffer stays a plain tensor with no grad_fn across iterations.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def sigmoid_focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = logits.sigmoid()
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    a_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (a_t * ce * (1 - p_t) ** gamma).sum()


class AnchorHead(nn.Module):
    def __init__(self, in_ch=8, num_anchors=3, num_classes=4, loss_normalizer_momentum=0.9):
        super().__init__()
        self.num_classes = num_classes
        self.cls_conv = nn.Conv2d(in_ch, num_anchors * num_classes, 3, padding=1)
        self.reg_conv = nn.Conv2d(in_ch, num_anchors * 4, 3, padding=1)
        self.loss_normalizer_momentum = loss_normalizer_momentum
        # initial guess of the number of positives per image
        self.register_buffer("loss_normalizer", torch.tensor(100.0))

    def forward(self, feat):
        n = feat.shape[0]
        cls = self.cls_conv(feat).permute(0, 2, 3, 1).reshape(n, -1, self.num_classes)
        reg = self.reg_conv(feat).permute(0, 2, 3, 1).reshape(n, -1, 4)
        return cls, reg

    def loss(self, cls_score, bbox_pred, labels, bbox_targets, pos_mask):
        # quality-aware positive count: positives weighted by their predicted score
        soft_pos = (cls_score.sigmoid().max(dim=-1).values * pos_mask).sum()
        m = self.loss_normalizer_momentum
        self.loss_normalizer = m * self.loss_normalizer + (1 - m) * soft_pos.detach()
        avg_factor = max(float(self.loss_normalizer), 1.0)
        onehot = F.one_hot(labels, self.num_classes).float() * pos_mask.unsqueeze(-1)
        loss_cls = sigmoid_focal_loss(cls_score, onehot) / avg_factor
        loss_bbox = (F.smooth_l1_loss(bbox_pred, bbox_targets, reduction="none").sum(-1) * pos_mask).sum() / avg_factor
        return dict(loss_cls=loss_cls, loss_bbox=loss_bbox)


class RetinaLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.head = AnchorHead()

    def forward_train(self, img, labels, bbox_targets, pos_mask):
        cls, reg = self.head(self.backbone(img))
        return self.head.loss(cls, reg, labels, bbox_targets, pos_mask)


def make_batches(n, bs=2, hw=8, anchors=3):
    k = (hw // 2) * (hw // 2) * anchors
    return [(torch.randn(bs, 3, hw, hw), torch.randint(0, 4, (bs, k)), torch.randn(bs, k, 4),
             (torch.rand(bs, k) > 0.8).float()) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = RetinaLite()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    log = {}
    for img, labels, bbox_targets, pos_mask in batches:
        losses = model.forward_train(img, labels, bbox_targets, pos_mask)
        total = sum(losses.values())
        opt.zero_grad()
        total.backward()
        opt.step()
        log = {k: v.item() for k, v in losses.items()}
