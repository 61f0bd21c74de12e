# Source: https://github.com/lucidrains/ema-pytorch/issues/25
# Shape: looks like an EMA of live parameters kept on self plus a loss meter that accumulates across iterations, but ModelEmaV3.update runs under torch.no_grad with in-place lerp_ on a deep-copied, grad-free module and the meter is fed loss.item().
# Verdict: clean
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
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


class ModelEmaV3(nn.Module):
    def __init__(self, model, decay=0.9999, min_decay=0.0, update_after_step=0, use_warmup=False, warmup_gamma=1.0, warmup_power=2 / 3):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        for p in self.module.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.min_decay = min_decay
        self.update_after_step = update_after_step
        self.use_warmup = use_warmup
        self.warmup_gamma = warmup_gamma
        self.warmup_power = warmup_power

    def get_decay(self, step=None):
        if step is None:
            return self.decay
        step = max(0, step - self.update_after_step - 1)
        if step <= 0:
            return 0.0
        if self.use_warmup:
            decay = 1 - (1 + step / self.warmup_gamma) ** -self.warmup_power
            return max(min(decay, self.decay), self.min_decay)
        return self.decay

    @torch.no_grad()
    def update(self, model, step=None):
        decay = self.get_decay(step)
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.is_floating_point():
                ema_v.lerp_(model_v.to(device=ema_v.device), weight=1.0 - decay)
            else:
                ema_v.copy_(model_v)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        )
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, model_ema=None, num_updates=0):
    losses_m = AverageMeter()
    model.train()
    for batch_idx, (input, target) in enumerate(loader):
        output = model(input)
        loss = loss_fn(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        num_updates += 1
        losses_m.update(loss.item(), input.size(0))
        if model_ema is not None:
            model_ema.update(model, step=num_updates)
    return {"loss": losses_m.avg}, num_updates


def validate(model, loader):
    top1_m = AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            output = model(input)
            top1_m.update((output.argmax(-1) == target).float().mean().item() * 100, input.size(0))
    return {"top1": top1_m.avg}


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(16, 3, 16, 16, generator=g), torch.randint(0, 10, (16,), generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = SmallConvNet()
    model_ema = ModelEmaV3(model, decay=0.998, use_warmup=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_metrics, num_updates = train_one_epoch(0, model, batches, optimizer, F.cross_entropy, model_ema=model_ema)
    ema_metrics = validate(model_ema, batches[:2])
    return train_metrics["loss"] + ema_metrics["top1"] / 100


if __name__ == "__main__":
    print(run(make_batches(5)))
