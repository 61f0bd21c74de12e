# Source: https://github.com/sming256/OpenTAD/blob/cd0ca96f16a135a5f2d8c8855cb62edebac911d5/opentad/cores/train_engine.py
# Shape: looks like a meter/EMA leak (per-key AverageMeters filled every iteration, a model EMA, tensor losses from reduce_loss), but reduce_loss works on detached copies, the meters receive value.item(), and the EMA update runs under torch.no_grad.
# Verdict: clean
import copy
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger("opentad")


class AverageMeter:
    def __init__(self):
        self.val = 0.0
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def reduce_loss(loss_dict):
    # all_reduce would go here; logging only, so work on detached copies
    return {k: v.detach().clone() for k, v in loss_dict.items()}


class ModelEma(nn.Module):
    def __init__(self, model, decay=0.999):
        super().__init__()
        self.module = copy.deepcopy(model).eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.mul_(self.decay).add_(model_v, alpha=1 - self.decay)


class TinyActionFormer(nn.Module):
    def __init__(self, in_dim=32, dim=64, num_classes=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv1d(in_dim, dim, 3, padding=1), nn.ReLU(), nn.Conv1d(dim, dim, 3, padding=1), nn.ReLU())
        self.cls_head = nn.Conv1d(dim, num_classes, 1)
        self.reg_head = nn.Conv1d(dim, 2, 1)

    def forward(self, inputs, gt_cls, gt_reg, return_loss=True):
        feat = self.backbone(inputs)
        cls_loss = F.cross_entropy(self.cls_head(feat), gt_cls)
        reg_loss = F.smooth_l1_loss(self.reg_head(feat), gt_reg)
        return {"cls_loss": cls_loss, "reg_loss": reg_loss, "cost": cls_loss + reg_loss}


def train_one_epoch(train_loader, model, optimizer, scheduler, curr_epoch, model_ema=None,
                    clip_grad_l2norm=-1, logging_interval=200, scaler=None):
    losses_tracker = {}
    use_amp = scaler is not None and scaler.is_enabled()
    model.train()
    for iter_idx, data_dict in enumerate(train_loader):
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
            losses = model(**data_dict, return_loss=True)
        if use_amp:
            scaler.scale(losses["cost"]).backward()
        else:
            losses["cost"].backward()
        if clip_grad_l2norm > 0.0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad_l2norm)
        optimizer.step()
        scheduler.step()
        if model_ema is not None:
            model_ema.update(model)

        losses = reduce_loss(losses)  # only for log
        for key, value in losses.items():
            if key not in losses_tracker:
                losses_tracker[key] = AverageMeter()
            losses_tracker[key].update(value.item())

        if iter_idx % logging_interval == 0:
            logger.info("[Train]: [%03d][%05d] Loss=%.4f", curr_epoch, iter_idx, losses_tracker["cost"].avg)
    return losses_tracker


def make_batches(n):
    return list(range(n))


def train_loader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield {"inputs": torch.randn(4, 32, 64, generator=g), "gt_cls": torch.randint(0, 8, (4, 64), generator=g),
               "gt_reg": torch.rand(4, 2, 64, generator=g)}


def run(batches):
    torch.manual_seed(0)
    model = TinyActionFormer()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    model_ema = ModelEma(model)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    losses_tracker = train_one_epoch(train_loader(batches), model, optimizer, scheduler, 0, model_ema=model_ema,
                                     clip_grad_l2norm=1.0, scaler=scaler)
    return {k: m.avg for k, m in losses_tracker.items()}


if __name__ == "__main__":
    print(run(make_batches(4)))
