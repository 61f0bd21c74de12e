# Source: https://github.com/valeoai/xmuda/blob/8b39f8f77f048cd4c086323dd89fbf9710335d35/xmuda/common/utils/metric_logger.py
# Shape: the training loop hands attached loss tensors straight to MetricLogger.update(), but update() converts every tensor with .item() before it reaches the AverageMeter deques, and the IoU meter only sees argmax predictions taken under no_grad, so nothing from the graph is kept.
# Verdict: clean
from collections import defaultdict, deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter(object):
    default_fmt = '{avg:.4f} ({global_avg:.4f})'

    def __init__(self, window_size=20, fmt=None):
        self.values = deque(maxlen=window_size)
        self.counts = deque(maxlen=window_size)
        self.sum = 0.0
        self.count = 0
        self.fmt = fmt or self.default_fmt

    def update(self, value, count=1):
        self.values.append(value)
        self.counts.append(count)
        self.sum += value
        self.count += count

    @property
    def avg(self):
        return sum(self.values) / max(sum(self.counts), 1)

    @property
    def global_avg(self):
        return self.sum / self.count if self.count != 0 else float('nan')

    def reset(self):
        self.values.clear()
        self.counts.clear()
        self.sum = 0.0
        self.count = 0

    def __str__(self):
        return self.fmt.format(avg=self.avg, global_avg=self.global_avg)


class MetricLogger(object):
    def __init__(self, delimiter='\t'):
        self.meters = defaultdict(AverageMeter)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                count = v.numel()
                value = v.item() if count == 1 else v.sum().item()
            else:
                assert isinstance(v, (float, int))
                value = v
                count = 1
            self.meters[k].update(value, count)

    def add_meter(self, name, meter):
        self.meters[name] = meter

    def __str__(self):
        return self.delimiter.join('{}: {}'.format(name, str(meter)) for name, meter in self.meters.items())


class SegIoU(object):
    """Confusion-matrix IoU, fed with integer predictions only."""

    def __init__(self, num_classes, ignore_index=-100, name='seg_iou'):
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.name = name
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.int64)

    def update_dict(self, preds, labels):
        seg_label = labels.flatten()
        pred_label = preds.flatten()
        mask = seg_label != self.ignore_index
        inds = self.num_classes * seg_label[mask] + pred_label[mask]
        self.mat += torch.bincount(inds, minlength=self.num_classes ** 2).reshape(self.num_classes, self.num_classes)

    @property
    def iou(self):
        h = self.mat.float()
        return torch.diag(h) / (h.sum(1) + h.sum(0) - torch.diag(h)).clamp(min=1)

    def __str__(self):
        return '{:.4f}'.format(self.iou.mean().item())


class Net2DSeg(nn.Module):
    def __init__(self, num_classes=5, dual_head=True):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.linear = nn.Conv2d(32, num_classes, 1)
        self.dual_head = dual_head
        if dual_head:
            self.linear2 = nn.Conv2d(32, num_classes, 1)

    def forward(self, img):
        feats = self.backbone(img)
        out = {'seg_logit': self.linear(feats)}
        if self.dual_head:
            out['seg_logit2'] = self.linear2(feats)
        return out


def load_batch(seed, num_classes, batch_size=4, size=32):
    g = torch.Generator().manual_seed(seed)
    img = torch.randn(batch_size, 3, size, size, generator=g)
    seg_label = torch.randint(0, num_classes, (batch_size, size, size), generator=g)
    seg_label[:, -2:] = -100
    return {'img': img, 'seg_label': seg_label}


def train_one_iter(model, optimizer, data_batch, train_metric_logger, seg_iou, lambda_xm=0.1):
    optimizer.zero_grad()
    preds = model(data_batch['img'])
    seg_loss = F.cross_entropy(preds['seg_logit'], data_batch['seg_label'], ignore_index=-100)
    xm_loss = F.kl_div(F.log_softmax(preds['seg_logit2'], dim=1),
                       F.softmax(preds['seg_logit'].detach(), dim=1), reduction='none').sum(1).mean()
    loss = seg_loss + lambda_xm * xm_loss
    train_metric_logger.update(seg_loss=seg_loss, xm_loss=xm_loss, loss=loss)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        seg_iou.update_dict(preds['seg_logit'].argmax(1), data_batch['seg_label'])


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    num_classes = 5
    model = Net2DSeg(num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_metric_logger = MetricLogger(delimiter='  ')
    seg_iou = SegIoU(num_classes, name='seg_iou_2d')
    model.train()
    for iteration, seed in enumerate(batches):
        data_batch = load_batch(seed, num_classes)
        train_one_iter(model, optimizer, data_batch, train_metric_logger, seg_iou)
    return train_metric_logger, seg_iou
