# Source: https://github.com/jerpelhan/DAVE/issues/11
# Shape: the FCOS-style det_criterion returns a loss dict whose 'iou_metric' entry is never part of the backwarded loss; the training loop appends the raw loss dicts to epoch_log, so every iteration's un-executed IoU graph (with its saved box maps) stays alive until the epoch ends.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Args:
    image_size = 48
    fcos_pred_size = 24
    batch_size = 2
    lr = 1e-3
    backbone_lr = 0.0
    weight_decay = 1e-4
    max_grad_norm = 0.1
    normalized_l2 = True
    aux_weight = 0.3


class Backbone(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, dim, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class DAVE(nn.Module):
    """Counting head (density + aux densities) and an FCOS-like box head on top of a shared backbone."""

    def __init__(self, dim=32, num_aux=2):
        super().__init__()
        self.backbone = Backbone(dim)
        self.regression_head = nn.Sequential(nn.Conv2d(dim, dim, 3, padding=1), nn.ReLU(), nn.Conv2d(dim, 1, 1))
        self.aux_heads = nn.ModuleList([nn.Conv2d(dim, 1, 1) for _ in range(num_aux)])
        self.box_head = nn.Sequential(nn.Conv2d(dim, dim, 3, padding=1), nn.ReLU(), nn.Conv2d(dim, 4, 1))
        self.ctr_head = nn.Conv2d(dim, 1, 1)

    def forward(self, img, bboxes):
        feat = self.backbone(img)
        outR = F.relu(self.regression_head(feat))
        aux_R = [F.relu(h(feat)) for h in self.aux_heads]
        tblr = torch.exp(self.box_head(feat).clamp(max=4.0))
        location = self.ctr_head(feat)
        return outR, aux_R, tblr, location


class ObjectNormalizedL2Loss(nn.Module):
    def forward(self, output, dmap, bboxes, num_objects=None):
        num_objects = num_objects if num_objects is not None else 1.0
        return {'l2': ((output - dmap) ** 2).sum() / num_objects}


class FCOSLoss(nn.Module):
    """Regression (IoU loss on positive locations) + centerness BCE; also reports a dense IoU metric."""

    def iou(self, pred, target):
        pred_area = (pred[:, 0] + pred[:, 1]) * (pred[:, 2] + pred[:, 3])
        target_area = (target[:, 0] + target[:, 1]) * (target[:, 2] + target[:, 3])
        w_intersect = torch.min(pred[:, 2], target[:, 2]) + torch.min(pred[:, 3], target[:, 3])
        h_intersect = torch.min(pred[:, 0], target[:, 0]) + torch.min(pred[:, 1], target[:, 1])
        area_intersect = w_intersect * h_intersect
        area_union = target_area + pred_area - area_intersect
        return (area_intersect + 1.0) / (area_union + 1.0)

    def forward(self, location, tblr, targets):
        pos = targets['pos_mask']
        ious = self.iou(tblr, targets['tblr'])
        loss_reg = -(torch.log(ious.clamp(min=1e-6)) * pos).sum() / pos.sum().clamp(min=1.0)
        loss_ctr = F.binary_cross_entropy_with_logits(location[:, 0], targets['centerness'])
        return {'loss_reg': loss_reg, 'loss_ctr': loss_ctr, 'iou_metric': ious.mean()}


def make_targets(bboxes, pred_size, image_size):
    """Turn xyxy boxes into dense tblr regression targets on the FCOS grid."""
    b = bboxes.size(0)
    stride = image_size / pred_size
    ys = (torch.arange(pred_size).float() + 0.5) * stride
    xs = (torch.arange(pred_size).float() + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing='ij')
    box = bboxes[:, 0]
    t = cy[None] - box[:, 1, None, None]
    btm = box[:, 3, None, None] - cy[None]
    l = cx[None] - box[:, 0, None, None]
    r = box[:, 2, None, None] - cx[None]
    tblr = torch.stack([t, btm, l, r], dim=1)
    pos = (tblr.min(dim=1).values > 0).float()
    ctr = torch.sqrt((torch.min(t, btm).clamp(min=0) / torch.max(t, btm).clamp(min=1e-3)) *
                     (torch.min(l, r).clamp(min=0) / torch.max(l, r).clamp(min=1e-3)))
    return {'tblr': tblr.clamp(min=0.5), 'pos_mask': pos, 'centerness': ctr.clamp(0, 1) * pos}


def load_sample(seed, args):
    g = torch.Generator().manual_seed(seed)
    img = torch.randn(args.batch_size, 3, args.image_size, args.image_size, generator=g)
    xy = torch.rand(args.batch_size, 3, 2, generator=g) * (args.image_size - 24)
    wh = 8 + torch.rand(args.batch_size, 3, 2, generator=g) * 16
    bboxes = torch.cat([xy, xy + wh], dim=-1)
    density_map = torch.rand(args.batch_size, 1, args.fcos_pred_size, args.fcos_pred_size, generator=g) * 0.01
    return img, bboxes, density_map


def summarize(epoch_log):
    agg = defaultdict(float)
    for entry in epoch_log:
        for k, v in entry.items():
            agg[k] += float(v)
    return {k: v / max(len(epoch_log), 1) for k, v in agg.items()}


def train_epoch(model, criterion, aux_criterion, det_criterion, optimizer, loader, args):
    model.train()
    epoch_log = []
    for index, seed in enumerate(loader):
        img, bboxes, density_map = load_sample(seed, args)
        targets = make_targets(bboxes, args.fcos_pred_size, args.image_size)
        optimizer.zero_grad()
        outR, aux_R, tblr, location = model(img, bboxes)

        if args.normalized_l2:
            with torch.no_grad():
                num_objects = density_map.sum()
        else:
            num_objects = None

        main_losses = criterion(outR, density_map, bboxes, num_objects)
        aux_losses = [aux_criterion(aux, density_map, bboxes, num_objects) for aux in aux_R]
        det_losses = det_criterion(location, tblr, targets)
        del targets
        det_loss = det_losses['loss_reg'] + det_losses['loss_ctr']
        loss = (
            sum([ml for ml in main_losses.values()]) * 0 +
            sum([al for alls in aux_losses for al in alls.values()]) * 0 +
            det_loss
        )
        loss.backward()
        if args.max_grad_norm > 0:
            nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        optimizer.step()

        epoch_log.append({**main_losses, **det_losses})  # TLK102
    return epoch_log


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    args = Args()
    model = DAVE()
    backbone_params = [p for n, p in model.named_parameters() if 'backbone' in n]
    other_params = [p for n, p in model.named_parameters() if 'backbone' not in n]
    optimizer = torch.optim.AdamW([
        {'params': other_params},
        {'params': backbone_params, 'lr': args.backbone_lr},
    ], lr=args.lr, weight_decay=args.weight_decay)
    criterion = ObjectNormalizedL2Loss()
    aux_criterion = ObjectNormalizedL2Loss()
    det_criterion = FCOSLoss()
    epoch_log = train_epoch(model, criterion, aux_criterion, det_criterion, optimizer, batches, args)
    return summarize(epoch_log), epoch_log
