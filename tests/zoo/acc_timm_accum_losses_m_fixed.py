# Source: https://github.com/Vision-wck/inceptionnext/blob/304974c5e2240b47fa21efde869afb8d5db1d8c3/train.py
# Shape: fixed twin: the meter receives reduced_loss.item(), a Python float, so no graph is kept across iterations.
# Verdict: clean
import time
from collections import OrderedDict
from contextlib import suppress
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    """Computes and stores the average and current value (timm.utils.AverageMeter)."""

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


class NativeScaler:
    state_dict_key = "amp_scaler"

    def __init__(self, enabled=False):
        self._scaler = torch.amp.GradScaler("cpu", enabled=enabled)

    def __call__(self, loss, optimizer, clip_grad=None, clip_mode="norm", parameters=None,
                 create_graph=False, update_grad=True):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()


class ModelEmaV2(nn.Module):
    def __init__(self, model, decay=0.9998):
        super().__init__()
        import copy
        self.module = copy.deepcopy(model)
        self.module.eval()
        self.decay = decay

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)


class ConvMlpNet(nn.Module):
    def __init__(self, in_chans=3, dim=32, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(in_chans, dim, 3, stride=2, padding=1)
        self.norm = nn.BatchNorm2d(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = F.gelu(self.norm(self.stem(x)))
        x = x.mean((2, 3))
        return self.head(x + self.mlp(x))


def reduce_tensor(tensor, n):
    return tensor.clone() / n


def _reduce_for_log(loss, args):
    if args.distributed:
        return reduce_tensor(loss.data, args.world_size)
    return loss


def _log_train_step(losses_m, loss, input, args):
    reduced_loss = _reduce_for_log(loss, args)
    losses_m.update(reduced_loss.item(), input.size(0))


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, amp_autocast=suppress,
                    loss_scaler=None, model_ema=None, grad_accum_steps=1):
    second_order = hasattr(optimizer, "is_second_order") and optimizer.is_second_order
    batch_time_m = AverageMeter()
    losses_m = AverageMeter()

    model.train()
    optimizer.zero_grad()
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader):
        with amp_autocast():
            output = model(input)
            loss = loss_fn(output, target)

        _log_train_step(losses_m, loss, input, args)

        update_grad = (batch_idx + 1) % grad_accum_steps == 0
        loss_update = loss / grad_accum_steps
        loss_scaler(loss_update, optimizer, clip_grad=args.clip_grad, parameters=model.parameters(),
                    create_graph=second_order, update_grad=update_grad)
        if update_grad:
            optimizer.zero_grad()
            if model_ema is not None:
                model_ema.update(model)
        batch_time_m.update(time.time() - end)
        end = time.time()

    return OrderedDict([("loss", losses_m.avg)])


def make_batches(n):
    # one seed per step; the loader materialises each batch lazily (like a DataLoader)
    return list(range(n))


def create_loader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)


def run(batches):
    torch.manual_seed(0)
    args = SimpleNamespace(distributed=False, world_size=1, clip_grad=5.0)
    model = ConvMlpNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model_ema = ModelEmaV2(model, decay=0.99)
    loss_scaler = NativeScaler(enabled=False)
    train_loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    metrics = train_one_epoch(0, model, create_loader(batches), optimizer, train_loss_fn, args,
                              loss_scaler=loss_scaler, model_ema=model_ema, grad_accum_steps=2)
    return metrics


if __name__ == "__main__":
    print(run(make_batches(4)))
