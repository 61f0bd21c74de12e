# Source: https://github.com/gianlucarloni/crocodile/blob/main/code/main-crocodile.py
# Shape: the meter is updated with loss.item(), so its running sum is a python float and each AMP step graph is freed after scaler.scale(loss).backward().
# Verdict: clean
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f", val_only=False):
        self.name = name
        self.fmt = fmt
        self.val_only = val_only
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

    def __str__(self):
        fmtstr = "{name} {val" + self.fmt + "}" if self.val_only else "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(**self.__dict__)


class ProgressMeter(object):
    def __init__(self, num_batches, meters, prefix=""):
        self.batch_fmtstr = "[{:" + str(len(str(num_batches))) + "d}/" + str(num_batches) + "]"
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        return "  ".join(entries)


class DisentangledClassifier(nn.Module):
    """Backbone + causal (x) and confounding (c) heads, as in the multi-branch CXR classifier."""

    def __init__(self, in_dim=64, hidden=128, num_class=9):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.head_x = nn.Linear(hidden, num_class)
        self.head_c = nn.Linear(hidden, num_class)

    def forward(self, x):
        h = self.backbone(x)
        return self.head_x(h), self.head_c(h)


def get_learning_rate(optimizer):
    return optimizer.param_groups[0]["lr"]


def train(train_loader, model, criterion, optimizer, scheduler, scaler, epoch, args):
    losses = AverageMeter("Loss", ":5.3f")
    lr = AverageMeter("LR", ":.3e", val_only=True)
    batch_time = AverageMeter("T", ":5.3f")
    progress = ProgressMeter(len(train_loader), [lr, losses, batch_time], prefix="Epoch: [{}/{}]".format(epoch, args["epochs"]))

    model.train()
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=args["amp"]):
            z_x, z_c = model(images)
            loss1 = criterion(z_x.float(), target)
            # confounding branch pushed towards the uniform prediction
            loss2 = F.kl_div(F.logsigmoid(z_c.float()), torch.full_like(target, 0.5), reduction="batchmean")
            loss = args["w_CE_y"] * loss1 + args["w_KL_y"] * loss2

        # record loss
        losses.update(loss.item(), images.size(0))

        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

        # delete variables to free memory
        del images, target, loss, loss1, loss2

        scheduler.step()
        lr.update(get_learning_rate(optimizer))
        batch_time.update(time.time() - end)
        end = time.time()
        if i % args["print_freq"] == 0:
            progress.display(i)
    return losses


def make_batches(n, batch_size=32, in_dim=64, num_class=9):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, in_dim, generator=g), torch.randint(0, 2, (batch_size, num_class), generator=g).float()) for _ in range(n)]


def run(steps):
    torch.manual_seed(0)
    args = {"epochs": 1, "amp": True, "w_CE_y": 1.0, "w_KL_y": 0.5, "print_freq": 10}
    model = DisentangledClassifier()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-2)
    train_loader = make_batches(steps)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=steps + 1)
    scaler = torch.amp.GradScaler("cpu", enabled=args["amp"])
    losses = train(train_loader, model, criterion, optimizer, scheduler, scaler, 0, args)
    return {"model": model, "losses": losses}


if __name__ == "__main__":
    print(run(5)["losses"])
