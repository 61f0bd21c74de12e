# Source: https://github.com/sunsmarterjie/SDL-Skeleton/issues/6
# Shape: the display accumulators lossAcc / lossFuse (ported from loss.data[0]) add the attached side-output and fuse losses of every micro-batch, and are only reset every disp_interval steps, so all those graphs stay reachable between two log lines.
# Verdict: leak
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(**kw):
    args = argparse.Namespace(resume_iter=0, max_step=10, iter_size=4, lr=1e-4, lr_step=2000, lr_gamma=0.1,
                              disp_interval=100, save_interval=100000, img=32)
    vars(args).update(kw)
    return args


def make_batches(n, img=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        data = torch.rand(1, 3, img, img, generator=g)
        target = (torch.rand(1, 1, img, img, generator=g) > 0.9).float()
        out.append((data, target))
    return out


def balanced_bce(pred, target):
    pos = target.sum()
    neg = target.numel() - pos
    weight = torch.where(target > 0, neg / target.numel(), 1.1 * pos / target.numel())
    return F.binary_cross_entropy_with_logits(pred, target, weight=weight, reduction='sum')


class SkeletonNet(nn.Module):
    """VGG-ish trunk with side outputs at three scales and a fusion layer (HED/SRN style)."""

    def __init__(self, C=16):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, C, 3, padding=1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(C, C, 3, padding=1), nn.ReLU())
        self.stage3 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(C, C, 3, padding=1), nn.ReLU())
        self.side = nn.ModuleList([nn.Conv2d(C, 1, 1) for _ in range(3)])
        self.fuse = nn.Conv2d(3, 1, 1)

    def forward(self, data, target):
        h, w = data.shape[-2:]
        f1 = self.stage1(data)
        f2 = self.stage2(f1)
        f3 = self.stage3(f2)
        sides = [F.interpolate(s(f), size=(h, w), mode='bilinear', align_corners=False)
                 for s, f in zip(self.side, (f1, f2, f3))]
        fused = self.fuse(torch.cat(sides, 1))
        side_loss = sum(balanced_bce(s, target) for s in sides)
        fuse_loss = balanced_bce(fused, target)
        return side_loss + fuse_loss, fuse_loss


class Trainer(object):
    def __init__(self, network, optimizer, dataloader, args):
        self.args = args
        self.network = network
        self.optimizer = optimizer
        self.dataloader = dataloader
        self.timeformat = '%Y-%m-%d %H:%M:%S'
        self.log = []

    def train(self):
        lossAcc = 0.0
        lossFuse = 0.0
        self.network.eval()  # if backbone has BN layers, freeze them
        dataiter = iter(self.dataloader)
        for _ in range(self.args.resume_iter // self.args.lr_step):
            self.adjustLR()
        for step in range(self.args.resume_iter, self.args.max_step):
            losses = []
            for _ in range(self.args.iter_size):
                try:
                    data, target = next(dataiter)
                except StopIteration:
                    dataiter = iter(self.dataloader)
                    data, target = next(dataiter)

                loss, fuse_loss = self.network(data, target)
                if math.isnan(float(loss)):
                    raise ValueError('loss is nan while training')
                losses.append(loss)
                lossAcc += loss  # TLK101
                lossFuse += fuse_loss  # TLK101

            bLoss = torch.mean(torch.stack(losses))
            self.optimizer.zero_grad()
            bLoss.backward()
            self.optimizer.step()

            # adjust hed learning rate
            if (step > 0) and (step % self.args.lr_step) == 0:
                self.adjustLR()

            # visualize the loss
            if (step + 1) % self.args.disp_interval == 0:
                timestr = time.strftime(self.timeformat, time.localtime())
                self.log.append('{} iter={} totloss={:<8.2f} fuseloss={:<8.2f}'.format(
                    timestr, step + 1, float(lossAcc) / self.args.disp_interval / self.args.iter_size,
                    float(lossFuse) / self.args.disp_interval / self.args.iter_size))
                if step < self.args.max_step - 1:
                    lossAcc = 0.0
                    lossFuse = 0.0
        self.lossAcc, self.lossFuse = lossAcc, lossFuse
        return lossAcc / self.args.disp_interval / self.args.iter_size

    def adjustLR(self):
        for param_group in self.optimizer.param_groups:
            param_group['lr'] *= self.args.lr_gamma


def run(steps):
    torch.manual_seed(0)
    args = get_args(max_step=steps)
    net = SkeletonNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=2e-4)
    trainer = Trainer(net, optimizer, make_batches(8, args.img), args)
    avg = trainer.train()
    return {"trainer": trainer, "avg": avg}


if __name__ == "__main__":
    run(10)
