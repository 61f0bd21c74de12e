# Source: https://github.com/megvii-research/mdistiller/blob/a08d46f10d6102bd6e3f258ca5ac880b020ea259/mdistiller/engine/trainer.py
# Shape: the DOT trainer backwards loss_kd with a needed retain_graph and then loss_ce also with retain_graph=True although nothing backwards that graph again, and the attached loss_ce + loss_kd is summed into the AverageMeter, so every iteration's whole student graph (buffers included) stays alive in meter.sum.
# Verdict: leak
"""Distillation-Oriented Trainer (DOT) with a DKD distiller, written the way
mdistiller organises it: a cfg node, a Distiller base class whose teacher is
always in eval mode, an AverageMeter dict per epoch and a BaseTrainer subclass
that overrides train_iter()."""
import os
import time
from collections import OrderedDict
from types import SimpleNamespace as CN

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


def get_cfg():
    cfg = CN()
    cfg.SOLVER = CN(TYPE="SGD", LR=0.05, MOMENTUM=0.9, WEIGHT_DECAY=5e-4,
                    EPOCHS=1, LR_DECAY_STAGES=[150, 180, 210], LR_DECAY_RATE=0.1,
                    DOT=CN(DELTA=0.075))
    cfg.DKD = CN(CE_WEIGHT=1.0, ALPHA=1.0, BETA=8.0, T=4.0, WARMUP=20)
    cfg.LOG = CN(WANDB=False, SAVE_CHECKPOINT_FREQ=40, PREFIX="./output")
    return cfg


# ----------------------------------------------------------------- utils
class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.reshape(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def validate(val_loader, distiller):
    losses, top1 = AverageMeter(), AverageMeter()
    criterion = nn.CrossEntropyLoss()
    distiller.eval()
    with torch.no_grad():
        for image, target in val_loader:
            output = distiller(image=image)
            loss = criterion(output, target)
            acc1, = accuracy(output, target, topk=(1,))
            losses.update(loss.item(), image.size(0))
            top1.update(acc1[0], image.size(0))
    return top1.avg, losses.avg


def adjust_learning_rate(epoch, cfg, optimizer):
    steps = sum(epoch > s for s in cfg.SOLVER.LR_DECAY_STAGES)
    new_lr = cfg.SOLVER.LR * (cfg.SOLVER.LR_DECAY_RATE ** steps)
    for param_group in optimizer.param_groups:
        param_group["lr"] = new_lr
    return new_lr


# ----------------------------------------------------------------- models
class ConvNet(nn.Module):
    """returns (logits, feats) like mdistiller's cifar models"""

    def __init__(self, width=16, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width * 2, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(width * 2)
        self.fc = nn.Linear(width * 2, num_classes)

    def forward(self, x):
        f1 = F.relu(self.bn1(self.conv1(x)))
        f2 = F.relu(self.bn2(self.conv2(f1)))
        pooled = F.adaptive_avg_pool2d(f2, 1).flatten(1)
        return self.fc(pooled), {"feats": [f1, f2], "pooled_feat": pooled}


# ----------------------------------------------------------------- distillers
class Distiller(nn.Module):
    def __init__(self, student, teacher):
        super(Distiller, self).__init__()
        self.student = student
        self.teacher = teacher

    def train(self, mode=True):
        self.training = mode
        for module in self.children():
            module.train(mode)
        self.teacher.eval()
        return self

    def get_learnable_parameters(self):
        return [v for k, v in self.student.named_parameters()]

    def forward_train(self, **kwargs):
        raise NotImplementedError()

    def forward_test(self, image):
        return self.student(image)[0]

    def forward(self, **kwargs):
        if self.training:
            return self.forward_train(**kwargs)
        return self.forward_test(kwargs["image"])


def _get_gt_mask(logits, target):
    return torch.zeros_like(logits).scatter_(1, target.reshape(-1).unsqueeze(1), 1).bool()


def _get_other_mask(logits, target):
    return torch.ones_like(logits).scatter_(1, target.reshape(-1).unsqueeze(1), 0).bool()


def cat_mask(t, mask1, mask2):
    t1 = (t * mask1).sum(dim=1, keepdims=True)
    t2 = (t * mask2).sum(1, keepdims=True)
    return torch.cat([t1, t2], dim=1)


def dkd_loss(logits_student, logits_teacher, target, alpha, beta, temperature):
    gt_mask = _get_gt_mask(logits_student, target)
    other_mask = _get_other_mask(logits_student, target)
    pred_student = F.softmax(logits_student / temperature, dim=1)
    pred_teacher = F.softmax(logits_teacher / temperature, dim=1)
    pred_student = cat_mask(pred_student, gt_mask, other_mask)
    pred_teacher = cat_mask(pred_teacher, gt_mask, other_mask)
    log_pred_student = torch.log(pred_student)
    tckd_loss = (F.kl_div(log_pred_student, pred_teacher, reduction="sum")
                 * (temperature ** 2) / target.shape[0])
    pred_teacher_part2 = F.softmax(logits_teacher / temperature - 1000.0 * gt_mask, dim=1)
    log_pred_student_part2 = F.log_softmax(logits_student / temperature - 1000.0 * gt_mask, dim=1)
    nckd_loss = (F.kl_div(log_pred_student_part2, pred_teacher_part2, reduction="sum")
                 * (temperature ** 2) / target.shape[0])
    return alpha * tckd_loss + beta * nckd_loss


class DKD(Distiller):
    """Decoupled Knowledge Distillation(CVPR 2022)"""

    def __init__(self, student, teacher, cfg):
        super(DKD, self).__init__(student, teacher)
        self.ce_loss_weight = cfg.DKD.CE_WEIGHT
        self.alpha = cfg.DKD.ALPHA
        self.beta = cfg.DKD.BETA
        self.temperature = cfg.DKD.T
        self.warmup = cfg.DKD.WARMUP

    def forward_train(self, image, target, **kwargs):
        logits_student, _ = self.student(image)
        with torch.no_grad():
            logits_teacher, _ = self.teacher(image)
        loss_ce = self.ce_loss_weight * F.cross_entropy(logits_student, target)
        loss_dkd = min(kwargs["epoch"] / self.warmup, 1.0) * dkd_loss(
            logits_student, logits_teacher, target,
            self.alpha, self.beta, self.temperature)
        return logits_student, {"loss_ce": loss_ce, "loss_kd": loss_dkd}


# ----------------------------------------------------------------- DOT optimizer
class DistillationOrientedTrainer(Optimizer):
    """SGD with separate momentum for the task gradient and the kd gradient.
        optimizer.zero_grad(set_to_none=True)
        loss_kd.backward(retain_graph=True)
        optimizer.step_kd()
        optimizer.zero_grad(set_to_none=True)
        loss_task.backward()
        optimizer.step()
    """

    def __init__(self, params, lr, momentum=0.0, momentum_kd=0.0, weight_decay=0.0):
        defaults = dict(lr=lr, momentum=momentum, momentum_kd=momentum_kd, weight_decay=weight_decay)
        super().__init__(params, defaults)
        self.kd_grads = {}

    @torch.no_grad()
    def step_kd(self):
        self.kd_grads = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self.kd_grads[p] = p.grad.clone()

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, wd = group["lr"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None and p not in self.kd_grads:
                    continue
                state = self.state[p]
                d_task = p.grad if p.grad is not None else torch.zeros_like(p)
                d_task = d_task.add(p, alpha=wd)
                buf = state.setdefault("momentum_buffer", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(d_task)
                d_kd = self.kd_grads.get(p, torch.zeros_like(p))
                kbuf = state.setdefault("momentum_kd_buffer", torch.zeros_like(p))
                kbuf.mul_(group["momentum_kd"]).add_(d_kd)
                p.add_(buf + kbuf, alpha=-lr)
        self.kd_grads = {}


# ----------------------------------------------------------------- trainers
class BaseTrainer(object):
    def __init__(self, experiment_name, distiller, train_loader, val_loader, cfg):
        self.cfg = cfg
        self.distiller = distiller
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = self.init_optimizer(cfg)
        self.best_acc = -1
        self.log_path = os.path.join(cfg.LOG.PREFIX, experiment_name)
        self.worklog = []

    def init_optimizer(self, cfg):
        return torch.optim.SGD(self.distiller.get_learnable_parameters(), lr=cfg.SOLVER.LR,
                               momentum=cfg.SOLVER.MOMENTUM, weight_decay=cfg.SOLVER.WEIGHT_DECAY)

    def log(self, lr, epoch, log_dict):
        if log_dict["test_acc"] > self.best_acc:
            self.best_acc = log_dict["test_acc"]
        self.worklog.append(dict(epoch=epoch, lr=lr, **log_dict))

    def train(self, epochs):
        for epoch in range(1, epochs + 1):
            self.train_epoch(epoch)
        return self.best_acc

    def train_epoch(self, epoch):
        lr = adjust_learning_rate(epoch, self.cfg, self.optimizer)
        train_meters = {
            "training_time": AverageMeter(),
            "data_time": AverageMeter(),
            "losses": AverageMeter(),
            "top1": AverageMeter(),
        }
        self.distiller.train()
        for idx, data in enumerate(self.train_loader):
            msg = self.train_iter(data, epoch, train_meters)
        test_acc, test_loss = validate(self.val_loader, self.distiller)
        log_dict = OrderedDict({
            "train_acc": train_meters["top1"].avg,
            "train_loss": train_meters["losses"].avg,
            "test_acc": test_acc,
            "test_loss": test_loss,
        })
        self.log(lr, epoch, log_dict)
        self.train_meters = train_meters

    def train_iter(self, data, epoch, train_meters):
        raise NotImplementedError


class DOT(BaseTrainer):
    def init_optimizer(self, cfg):
        m_task = cfg.SOLVER.MOMENTUM - cfg.SOLVER.DOT.DELTA
        m_kd = cfg.SOLVER.MOMENTUM + cfg.SOLVER.DOT.DELTA
        return DistillationOrientedTrainer(
            self.distiller.get_learnable_parameters(), lr=cfg.SOLVER.LR,
            momentum=m_task, momentum_kd=m_kd, weight_decay=cfg.SOLVER.WEIGHT_DECAY)

    def train_iter(self, data, epoch, train_meters):
        train_start_time = time.time()
        image, target, index = data
        train_meters["data_time"].update(time.time() - train_start_time)

        # forward
        preds, losses_dict = self.distiller(image=image, target=target, epoch=epoch)

        # dot backward
        loss_ce, loss_kd = losses_dict["loss_ce"].mean(), losses_dict["loss_kd"].mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss_kd.backward(retain_graph=True)
        self.optimizer.step_kd()
        self.optimizer.zero_grad(set_to_none=True)
        loss_ce.backward(retain_graph=True)  # TLK201
        self.optimizer.step()

        train_meters["training_time"].update(time.time() - train_start_time)
        # collect info
        batch_size = image.size(0)
        acc1, = accuracy(preds, target, topk=(1,))
        train_meters["losses"].update(loss_ce + loss_kd, batch_size)  # TLK101
        train_meters["top1"].update(acc1[0], batch_size)
        msg = "Epoch:{}| Loss:{:.4f}| Top-1:{:.3f}".format(
            epoch, float(train_meters["losses"].avg), float(train_meters["top1"].avg))
        return msg


def make_batches(num_batches, batch_size=16, num_classes=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    protos = torch.randn(num_classes, 3, 16, 16, generator=g)
    for i in range(num_batches):
        target = torch.randint(0, num_classes, (batch_size,), generator=g)
        image = protos[target] + 0.5 * torch.randn(batch_size, 3, 16, 16, generator=g)
        index = torch.arange(i * batch_size, (i + 1) * batch_size)
        yield image, target, index


class SyntheticLoader(object):
    """re-iterable stand-in for a DataLoader over CIFAR-like tensors"""

    def __init__(self, num_batches, seed=0, with_index=True):
        self.num_batches, self.seed, self.with_index = num_batches, seed, with_index

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        for image, target, index in make_batches(self.num_batches, seed=self.seed):
            yield (image, target, index) if self.with_index else (image, target)


def run(steps):
    torch.manual_seed(0)
    cfg = get_cfg()
    teacher = ConvNet(width=32)
    student = ConvNet(width=16)
    distiller = DKD(student, teacher, cfg)
    train_loader = SyntheticLoader(steps)
    val_loader = SyntheticLoader(2, seed=1, with_index=False)
    trainer = DOT("dkd,res32x4,res8x4", distiller, train_loader, val_loader, cfg)
    trainer.train(cfg.SOLVER.EPOCHS)
    return trainer


if __name__ == "__main__":
    run(10)
