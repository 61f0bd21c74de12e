# Source: https://github.com/ultralytics/ultralytics/pull/25315
# Shape: a detector's ModelEMA blends the model into its EMA copy in place (v *= d; v += (1 - d) * msd[k]) with no torch.no_grad() and no .detach(); both sides come from state_dict(), which returns detached tensors, so the EMA weights never join a graph.
# Verdict: clean
import copy
import math

import torch
import torch.nn as nn


class ModelEMA:
    def __init__(self, model: nn.Module, decay=0.9999, tau=2000, updates=0):
        self.ema = copy.deepcopy(model).eval()
        self.updates = updates
        self.decay = lambda x: decay * (1 - math.exp(-x / tau))

    def update(self, model: nn.Module):
        self.updates += 1
        d = self.decay(self.updates)
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.dtype.is_floating_point:
                v *= d
                v += (1 - d) * msd[k]


def train_one_epoch(model, ema, loader, optimizer, scaler, compute_loss, accumulate=4):
    model.train()
    optimizer.zero_grad()
    for i, (imgs, targets) in enumerate(loader):
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            preds = model(imgs.cuda(non_blocking=True).float() / 255)
            loss, loss_items = compute_loss(preds, targets.cuda())
        scaler.scale(loss).backward()
        if (i + 1) % accumulate == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            ema.update(model)
