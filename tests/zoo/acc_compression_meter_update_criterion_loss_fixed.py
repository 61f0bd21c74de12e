# Source: https://github.com/lyq133/LIC-HPCM/issues/4
# Shape: An AverageMeter created once per epoch is fed the criterion value via .item() every batch, so its running sum stays a Python float.
# Verdict: clean
import time
import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0.0
        self.avg = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class RateDistortion(nn.Module):
    def __init__(self, lmbda=0.01):
        super().__init__()
        self.lmbda = lmbda

    def forward(self, recon, likelihoods, target):
        out = {}
        out["bpp"] = -torch.log2(likelihoods).mean()
        out["mse"] = F.mse_loss(recon, target)
        out["loss"] = self.lmbda * 255 ** 2 * out["mse"] + out["bpp"]
        return out


class TinyCodec(nn.Module):
    def __init__(self, d=16, k=6):
        super().__init__()
        self.g_a = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, k))
        self.g_s = nn.Sequential(nn.Linear(k, 32), nn.GELU(), nn.Linear(32, d))

    def forward(self, x):
        y = self.g_a(x)
        y_hat = y + (torch.rand_like(y) - 0.5)
        lik = torch.sigmoid(y_hat + 0.5) - torch.sigmoid(y_hat - 0.5)
        return self.g_s(y_hat), lik.clamp_min(1e-6)


def train_one_epoch(codec, criterion, loader, optimizer, epoch):
    codec.train()
    loss_meter = AverageMeter("loss")
    bpp_meter = AverageMeter("bpp")
    tic = time.time()
    for i, x in enumerate(loader):
        optimizer.zero_grad()
        x_hat, lik = codec(x)
        out_criterion = criterion(x_hat, lik, x)
        out_criterion["loss"].backward()
        torch.nn.utils.clip_grad_norm_(codec.parameters(), 1.0)
        optimizer.step()

        loss_meter.update(out_criterion["loss"].item(), x.size(0))
        bpp_meter.update(out_criterion["bpp"].item(), x.size(0))
        if i % 10 == 0:
            print(f"epoch {epoch} [{i}] loss {float(loss_meter.avg):.3f} bpp {bpp_meter.avg:.3f} ({time.time() - tic:.2f}s)")
    return loss_meter.avg


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(8, 16, generator=g) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    codec = TinyCodec()
    criterion = RateDistortion()
    optimizer = torch.optim.Adam(codec.parameters(), lr=1e-3)
    return train_one_epoch(codec, criterion, batches, optimizer, epoch=0)


if __name__ == "__main__":
    run(make_batches())
