# Source: https://github.com/aqx95/cassava_kaggle/blob/079f66cbe27ea56f820b01350f460bc2fb681f6c/trainer.py
# Shape: the same program as carry_cassava_fitter.py with its leak fixed; the look-alikes it keeps must stay silent.
# Verdict: clean
import math
import time
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    model_name: str = "tiny_effnet"
    num_classes: int = 5
    num_epochs: int = 1
    accum_iter: int = 2
    batch_size: int = 8
    lr: float = 1e-3
    weight_decay: float = 1e-6
    smoothing: float = 0.1
    focal_gamma: float = 2.0
    aux_weight: float = 0.4
    verbose: bool = True
    verbose_step: int = 1
    train_step_scheduler: bool = True
    val_step_scheduler: bool = False
    amp: bool = True
    seed: int = 719
    log: list = field(default_factory=list)


def make_batches(n, cfg=None, seed_offset=0):
    cfg = cfg or Config()
    g = torch.Generator().manual_seed(cfg.seed + seed_offset)
    batches = []
    for _ in range(n):
        labels = torch.randint(0, cfg.num_classes, (cfg.batch_size,), generator=g)
        imgs = torch.randn(cfg.batch_size, 3, 16, 16, generator=g) * 0.5
        imgs[torch.arange(cfg.batch_size), labels % 3] += 0.5  # weak class signal in one colour channel
        batches.append((imgs, labels))
    return batches


class TinyEffNet(nn.Module):
    """Backbone + main head + auxiliary head (deep supervision on the intermediate features)."""

    def __init__(self, num_classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU())
        self.block = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.SiLU())
        self.aux_head = nn.Linear(16, num_classes)
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        f1 = self.stem(x)
        f2 = self.block(f1)
        return self.head(f2.mean((2, 3))), self.aux_head(f1.mean((2, 3)))


class LabelSmoothingLoss(nn.Module):
    def __init__(self, classes, smoothing=0.0, dim=-1):
        super().__init__()
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.cls = classes
        self.dim = dim

    def forward(self, pred, target):
        pred = pred.log_softmax(dim=self.dim)
        with torch.no_grad():
            true_dist = torch.zeros_like(pred)
            true_dist.fill_(self.smoothing / (self.cls - 1))
            true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        return torch.mean(torch.sum(-true_dist * pred, dim=self.dim))


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, reduction="mean"):
        super().__init__()
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, preds, target):
        ce = F.cross_entropy(preds, target, reduction="none")
        pt = torch.exp(-ce)
        loss = (1 - pt) ** self.gamma * ce
        return loss.mean() if self.reduction == "mean" else loss.sum()


class MixedLoss(nn.Module):
    """label-smoothed CE on the main head + focal loss on the auxiliary head."""

    def __init__(self, cfg):
        super().__init__()
        self.main = LabelSmoothingLoss(cfg.num_classes, cfg.smoothing)
        self.aux = FocalLoss(cfg.focal_gamma)
        self.aux_weight = cfg.aux_weight

    def forward(self, outputs, target):
        main_logits, aux_logits = outputs
        return self.main(main_logits, target) + self.aux_weight * self.aux(aux_logits, target)


class AverageLossMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.curr_batch_avg_loss = 0
        self.avg = 0
        self.running_total_loss = 0
        self.count = 0

    def update(self, curr_batch_avg_loss: float, batch_size: int):
        self.curr_batch_avg_loss = curr_batch_avg_loss
        self.running_total_loss += curr_batch_avg_loss * batch_size
        self.count += batch_size
        self.avg = self.running_total_loss / self.count


class AccuracyMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.score = 0
        self.count = 0
        self.sum = 0

    def update(self, y_true, y_pred, batch_size=1):
        self.count += batch_size
        self.score = (y_true == y_pred).float().mean().item()
        self.sum += self.score * batch_size

    @property
    def avg(self):
        return self.sum / self.count


class SmoothedLoss:
    """Bias-corrected exponential moving average of the loss, shown in the progress bar."""

    def __init__(self, beta=0.98):
        self.beta = beta
        self.n = 0
        self.mov_avg = 0

    def update(self, value):
        self.n += 1
        self.mov_avg = self.beta * self.mov_avg + (1 - self.beta) * value

    @property
    def smooth(self):
        return self.mov_avg / (1 - self.beta ** self.n)


class ProgressBar:
    """Minimal tqdm replacement: keeps only the latest description/postfix."""

    def __init__(self, iterable, total):
        self.iterable, self.total = iterable, total
        self.description, self.postfix = "", {}

    def __iter__(self):
        return iter(self.iterable)

    def set_description(self, d):
        self.description = d

    def set_postfix(self, **kw):
        self.postfix = {k: str(v) for k, v in kw.items()}


class Fitter:
    def __init__(self, model, device, config):
        self.model = model
        self.device = device
        self.config = config
        self.best_acc = 0
        self.best_loss = math.inf
        self.monitored_metrics = None
        self.loss = MixedLoss(config)
        self.scaler = torch.amp.GradScaler("cpu", enabled=config.amp)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=100, eta_min=1e-6)
        self.smooth_loss = SmoothedLoss(beta=0.98)
        self.best_state = None
        self.log("Fitter prepared. Training with {}".format(self.device))

    def fit(self, train_loader, valid_loader, fold):
        self.log("Training on Fold {} with {}".format(fold, self.config.model_name))
        for epoch in range(self.config.num_epochs):
            lr = self.optimizer.param_groups[0]["lr"]
            self.log("LR: {}".format(lr))
            start_time = time.time()
            avg_train_loss = self.train_epoch(epoch, train_loader)
            self.log("[RESULT]: Train. Epoch {} | Avg Train Summary Loss: {:.6f} | Time Elapsed: {:.1f}".format(
                epoch + 1, avg_train_loss, time.time() - start_time))
            avg_val_loss, avg_val_acc, val_pred = self.valid_epoch(epoch, valid_loader)
            self.log("[RESULT]: Validation. Epoch: {} | Avg Validation Summary Loss: {:.6f} | Validation Accuracy: {:.6f}".format(
                epoch + 1, avg_val_loss, avg_val_acc))
            self.monitored_metrics = avg_val_acc
            if self.best_loss > avg_val_loss:
                self.best_loss = avg_val_loss
            if self.best_acc < avg_val_acc:
                self.best_acc = avg_val_acc
                self.save()
            if self.config.val_step_scheduler:
                self.scheduler.step()
        return self

    def train_epoch(self, epoch, train_loader):
        self.model.train()
        summary_loss = AverageLossMeter()
        start_time = time.time()
        pbar = ProgressBar(enumerate(train_loader), total=len(train_loader))
        self.optimizer.zero_grad()
        for step, (imgs, image_labels) in pbar:
            imgs, image_labels = imgs.to(self.device).float(), image_labels.to(self.device)
            batch_size = image_labels.shape[0]
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=self.config.amp):
                image_preds = self.model(imgs)
                loss = self.loss([p.float() for p in image_preds], image_labels) / self.config.accum_iter

            summary_loss.update(loss.item() * self.config.accum_iter, batch_size)
            self.smooth_loss.update(loss.item() * self.config.accum_iter)
            self.scaler.scale(loss).backward()

            if (step + 1) % self.config.accum_iter == 0 or (step + 1) == len(train_loader):
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
                if self.config.train_step_scheduler:
                    self.scheduler.step()

            if self.config.verbose and (step % self.config.verbose_step) == 0:
                pbar.set_description(f"Train Steps {step}/{len(train_loader)}, summary_loss: {summary_loss.avg:.3f}, "
                                     f"time: {(time.time() - start_time):.3f}")
                pbar.set_postfix(smooth_loss=f"{self.smooth_loss.smooth:.4f}")
        return summary_loss.avg

    def valid_epoch(self, epoch, valid_loader):
        self.model.eval()
        summary_loss = AverageLossMeter()
        accuracy_scores = AccuracyMeter()
        val_preds_softmax_list = []
        with torch.no_grad():
            for step, (imgs, image_labels) in enumerate(valid_loader):
                batch_size = image_labels.shape[0]
                image_preds, _ = self.model(imgs.float())
                loss = F.cross_entropy(image_preds, image_labels)
                summary_loss.update(loss.item(), batch_size)
                softmax_preds = torch.softmax(image_preds, dim=1)
                accuracy_scores.update(image_labels, softmax_preds.argmax(1), batch_size=batch_size)
                val_preds_softmax_list.append(softmax_preds.cpu())
        return summary_loss.avg, accuracy_scores.avg, torch.cat(val_preds_softmax_list)

    def save(self):
        self.best_state = {
            "model_state_dict": {k: v.detach().clone() for k, v in self.model.state_dict().items()},
            "best_acc": self.best_acc,
            "best_loss": self.best_loss,
        }

    def log(self, message):
        self.config.log.append(message)


def run(steps):
    """One fold, one epoch of `steps` training iterations, then validation."""
    cfg = Config()
    torch.manual_seed(cfg.seed)
    model = TinyEffNet(cfg.num_classes)
    fitter = Fitter(model, torch.device("cpu"), cfg)
    return fitter.fit(make_batches(steps, cfg), make_batches(2, cfg, seed_offset=1), fold=0)


if __name__ == "__main__":
    run(10)
