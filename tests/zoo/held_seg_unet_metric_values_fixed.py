# Source: https://github.com/InnopolisUni/innofw/pull/163
# Shape: fixed twin: the metric dict is converted with .item() before it is appended to self.training_metric_values, so the stored Dice / IoU values are floats and each batch's graph is freed after its backward.
# Verdict: clean
from enum import Enum

import torch
import torch.nn as nn
import torch.nn.functional as F


class SegOutKeys(str, Enum):
    predictions = "predictions"


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class TinyUNet(nn.Module):
    def __init__(self, in_channels=3, classes=1, base=8):
        super().__init__()
        self.enc1 = double_conv(in_channels, base)
        self.enc2 = double_conv(base, base * 2)
        self.bottleneck = double_conv(base * 2, base * 4)
        self.up2 = nn.ConvTranspose2d(base * 4, base * 2, 2, stride=2)
        self.dec2 = double_conv(base * 4, base * 2)
        self.up1 = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.dec1 = double_conv(base * 2, base)
        self.head = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottleneck(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, logits, target):
        probs = torch.sigmoid(logits)
        inter = (probs * target).sum(dim=(1, 2, 3))
        union = probs.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
        return 1 - ((2 * inter + self.smooth) / (union + self.smooth)).mean()


def soft_dice(probs, target, eps=1e-6):
    inter = (probs * target).sum()
    return (2 * inter + eps) / (probs.sum() + target.sum() + eps)


def soft_iou(probs, target, eps=1e-6):
    inter = (probs * target).sum()
    return (inter + eps) / (probs.sum() + target.sum() - inter + eps)


class SemanticSegmentationLightningModule(nn.Module):
    def __init__(self, model, losses, optimizer_cfg, threshold=0.5):
        super().__init__()
        self.model = model
        self.losses = losses  # list of (name, weight, loss_fn)
        self.threshold = threshold
        self.optimizer = torch.optim.Adam(self.model.parameters(), **optimizer_cfg)
        self.training_metric_values = []
        self.logged = []

    def forward(self, x):
        return self.model(x)

    def calc_losses(self, logits, target):
        total = 0.0
        for name, weight, fn in self.losses:
            total = total + weight * fn(logits, target)
        return total

    def compute_metrics(self, predictions, target):
        return {
            "dice": soft_dice(predictions, target),
            "iou": soft_iou(predictions, target),
        }

    def stage_step(self, stage, batch, do_logging=False):
        output = dict()
        image, target = batch
        logits = self.forward(image)
        loss = self.calc_losses(logits, target)
        predictions = torch.sigmoid(logits)
        output[SegOutKeys.predictions] = predictions
        if stage == "train":
            self.train_metrics = self.compute_metrics(predictions, target)
            self.training_metric_values.append({k: v.item() for k, v in self.train_metrics.items()})
        if do_logging:
            self.logged.append({f"{stage}_loss": loss.item()})
        output["loss"] = loss
        return output

    def training_step(self, batch, batch_idx):
        return self.stage_step("train", batch, do_logging=True)

    def fit_epoch(self, loader):
        self.train()
        for batch_idx, batch in enumerate(loader):
            self.optimizer.zero_grad()
            out = self.training_step(batch, batch_idx)
            out["loss"].backward()
            self.optimizer.step()
        return self.logged


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, batch_size=4, size=32):
    g = torch.Generator().manual_seed(seed)
    image = torch.randn(batch_size, 3, size, size, generator=g)
    target = (torch.rand(batch_size, 1, size, size, generator=g) > 0.7).float()
    return image, target


def run(batches):
    module = SemanticSegmentationLightningModule(
        TinyUNet(),
        losses=[("bce", 0.5, nn.BCEWithLogitsLoss()), ("dice", 0.5, DiceLoss())],
        optimizer_cfg=dict(lr=1e-3),
    )
    logged = module.fit_epoch(load_batch(s) for s in batches)
    return module, logged
