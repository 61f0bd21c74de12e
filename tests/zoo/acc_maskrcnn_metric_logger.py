# Source: https://github.com/facebookresearch/maskrcnn-benchmark/blob/master/maskrcnn_benchmark/engine/trainer.py
# Shape: On a single process reduce_loss_dict returns the attached loss dict itself, and MetricLogger.update (changed to skip the per-iteration .item() sync) hands the tensors to SmoothedValue, whose `self.total += value` chains every iteration's loss graph for global_avg.
# Verdict: leak
import datetime
import logging
import time
from collections import defaultdict, deque

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---------------------------------------------------------------- utils/comm.py
def get_world_size():
    if not torch.distributed.is_available() or not torch.distributed.is_initialized():
        return 1
    return torch.distributed.get_world_size()


# ---------------------------------------------------------------- utils/metric_logger.py
class SmoothedValue(object):
    """Track a series of values and provide access to smoothed values over a
    window or the global series average.
    """

    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0

    def update(self, value):
        self.deque.append(value)
        self.count += 1
        self.total += value

    @property
    def median(self):
        d = torch.as_tensor([float(v) for v in self.deque])
        return d.median().item()

    @property
    def avg(self):
        d = torch.as_tensor([float(v) for v in self.deque])
        return d.mean().item()

    @property
    def global_avg(self):
        return float(self.total) / self.count


class MetricLogger(object):
    def __init__(self, delimiter="\t"):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            assert isinstance(v, (float, int, torch.Tensor))
            self.meters[k].update(v)  # TLK101

    def __getattr__(self, attr):
        if attr in self.meters:
            return self.meters[attr]
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, attr))

    def __str__(self):
        loss_str = []
        for name, meter in self.meters.items():
            loss_str.append("{}: {:.4f} ({:.4f})".format(name, meter.median, meter.global_avg))
        return self.delimiter.join(loss_str)


class ScalarWriter(object):
    """Minimal stand-in for tensorboardX.SummaryWriter (stores python floats)."""

    def __init__(self):
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, value, step):
        self.scalars[tag].append((step, float(value)))


# ---------------------------------------------------------------- modeling (tiny Faster R-CNN heads)
class RPNHead(nn.Module):
    def __init__(self, in_channels, num_anchors):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, 1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, 1)

    def forward(self, x):
        t = F.relu(self.conv(x))
        return self.cls_logits(t), self.bbox_pred(t)


class ROIBoxHead(nn.Module):
    def __init__(self, in_channels, num_classes, resolution=4):
        super().__init__()
        self.resolution = resolution
        self.fc6 = nn.Linear(in_channels * resolution * resolution, 32)
        self.cls_score = nn.Linear(32, num_classes)
        self.bbox_pred = nn.Linear(32, num_classes * 4)

    def forward(self, features, proposals):
        pooled = F.adaptive_avg_pool2d(features, self.resolution).flatten(1)
        pooled = pooled.repeat_interleave(proposals, dim=0)
        x = F.relu(self.fc6(pooled))
        return self.cls_score(x), self.bbox_pred(x)


class GeneralizedRCNN(nn.Module):
    def __init__(self, num_classes=5, num_anchors=3, proposals_per_image=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.rpn = RPNHead(16, num_anchors)
        self.roi_heads = ROIBoxHead(16, num_classes)
        self.proposals_per_image = proposals_per_image

    def forward(self, images, targets):
        features = self.backbone(images)
        objectness, rpn_box = self.rpn(features)
        loss_objectness = F.binary_cross_entropy_with_logits(objectness, targets['objectness'])
        loss_rpn_box_reg = F.smooth_l1_loss(rpn_box, targets['rpn_box'], beta=1.0 / 9)
        n = torch.full((images.size(0),), self.proposals_per_image, dtype=torch.long)
        class_logits, box_regression = self.roi_heads(features, n)
        loss_classifier = F.cross_entropy(class_logits, targets['labels'])
        loss_box_reg = F.smooth_l1_loss(box_regression, targets['box_reg'])
        return dict(loss_objectness=loss_objectness, loss_rpn_box_reg=loss_rpn_box_reg,
                    loss_classifier=loss_classifier, loss_box_reg=loss_box_reg)


# ---------------------------------------------------------------- engine/trainer.py
def reduce_loss_dict(loss_dict):
    """
    Reduce the loss dictionary from all processes so that process with rank
    0 has the averaged results. Returns a dict with the same fields as
    loss_dict, after reduction.
    """
    world_size = get_world_size()
    if world_size < 2:
        return loss_dict
    with torch.no_grad():
        loss_names = []
        all_losses = []
        for k in sorted(loss_dict.keys()):
            loss_names.append(k)
            all_losses.append(loss_dict[k])
        all_losses = torch.stack(all_losses, dim=0)
        torch.distributed.reduce(all_losses, dst=0)
        if torch.distributed.get_rank() == 0:
            all_losses /= world_size
        reduced_losses = {k: v for k, v in zip(loss_names, all_losses)}
    return reduced_losses


def do_train(model, data_loader, optimizer, scheduler, checkpointer, device, checkpoint_period, arguments):
    writer = ScalarWriter()
    logger = logging.getLogger("maskrcnn_benchmark.trainer")
    meters = MetricLogger(delimiter="  ")
    max_iter = len(data_loader)
    start_iter = arguments["iteration"]
    model.train()
    start_training_time = time.time()
    end = time.time()
    for iteration, (images, targets, _) in enumerate(data_loader, start_iter):
        data_time = time.time() - end
        iteration = iteration + 1
        arguments["iteration"] = iteration

        images = images.to(device)
        targets = {k: v.to(device) for k, v in targets.items()}

        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())

        # reduce losses over all GPUs for logging purposes
        loss_dict_reduced = reduce_loss_dict(loss_dict)
        losses_reduced = sum(loss for loss in loss_dict_reduced.values())
        meters.update(loss=losses_reduced, **loss_dict_reduced)

        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        scheduler.step()

        batch_time = time.time() - end
        end = time.time()
        meters.update(time=batch_time, data=data_time)

        eta_seconds = meters.time.global_avg * (max_iter - iteration)
        eta_string = str(datetime.timedelta(seconds=int(eta_seconds)))

        if iteration % 20 == 0 or iteration == max_iter:
            logger.info(meters.delimiter.join(["eta: {eta}", "iter: {iter}", "{meters}", "lr: {lr:.6f}"]).format(
                eta=eta_string, iter=iteration, meters=str(meters), lr=optimizer.param_groups[0]["lr"]))
            writer.add_scalar('train_loss', losses_reduced, iteration)
            for k, v in loss_dict_reduced.items():
                writer.add_scalar(k, v.item(), iteration)

        if iteration % checkpoint_period == 0:
            checkpointer.append("model_{:07d}".format(iteration))

    total_training_time = time.time() - start_training_time
    logger.info("Total training time: {}".format(str(datetime.timedelta(seconds=total_training_time))))
    return meters, writer


def make_batches(n_batches=10, batch_size=2, size=32, num_classes=5, num_anchors=3, proposals=8, seed=0):
    torch.manual_seed(seed)
    batches = []
    for i in range(n_batches):
        images = torch.rand(batch_size, 3, size, size)
        fs = size // 4
        targets = {
            'objectness': (torch.rand(batch_size, num_anchors, fs, fs) > 0.7).float(),
            'rpn_box': torch.randn(batch_size, num_anchors * 4, fs, fs) * 0.1,
            'labels': torch.randint(0, num_classes, (batch_size * proposals,)),
            'box_reg': torch.randn(batch_size * proposals, num_classes * 4) * 0.1,
        }
        batches.append((images, targets, i))
    return batches


def run(steps):
    torch.manual_seed(0)
    model = GeneralizedRCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0025, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10000, 20000], gamma=0.1)
    base = make_batches()
    data_loader = [base[i % len(base)] for i in range(steps)]
    checkpoints = []
    meters, writer = do_train(model, data_loader, optimizer, scheduler, checkpoints, torch.device("cpu"),
                              checkpoint_period=2500, arguments={"iteration": 0})
    return {'model': model, 'meters': meters, 'writer': writer}


if __name__ == "__main__":
    run(10)
