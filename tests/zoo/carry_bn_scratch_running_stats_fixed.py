# Source: https://discuss.pytorch.org/t/implementing-batchnorm-in-pytorch-problem-with-updating-self-running-mean-and-self-running-var/49314
# Shape: Same from-scratch BatchNorm2d; the running buffers are updated under torch.no_grad() (ptrblck's answer), so they hold plain numbers; the batch mean/var used for normalisation stay attached, as they must for backprop.
# Verdict: clean
import io
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    num_classes: int = 10
    width: int = 16
    batch_size: int = 16
    lr: float = 0.05
    momentum: float = 0.9
    eval_every: int = 5
    patience: int = 4


def make_batches(n_batches=6, batch_size=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, 3, 8, 8, generator=g)
        y = torch.randint(0, 10, (batch_size,), generator=g)
        batches.append((x, y))
    return batches


class BatchNorm(nn.Module):
    """BatchNorm2d written from scratch (no nn.BatchNorm base class)."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05):
        super().__init__()
        self.momentum = momentum
        self.epsilon = epsilon
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    @staticmethod
    def _batch_stats(x):
        mean = x.mean([0, 2, 3])
        var = x.var([0, 2, 3], unbiased=False)
        var_unbiased = x.var([0, 2, 3], unbiased=True)
        return mean, var, var_unbiased

    @torch.no_grad()
    def _update_running_stats(self, mean, var_unbiased):
        m = self.momentum
        new_mean = m * self.running_mean + (1.0 - m) * mean
        new_var = m * self.running_var + (1.0 - m) * var_unbiased
        self.running_mean, self.running_var = new_mean, new_var

    def forward(self, x):
        if self.training:
            mean, var, var_unbiased = self._batch_stats(x)
            self._update_running_stats(mean, var_unbiased)
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + self.epsilon)
        return x_hat * self.weight[None, :, None, None] + self.bias[None, :, None, None]


class SmallConvNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg.width
        self.conv1 = nn.Conv2d(3, w, 3, padding=1)
        self.bn1 = BatchNorm(w)
        self.conv2 = nn.Conv2d(w, w, 3, padding=1)
        self.bn2 = BatchNorm(w)
        self.fc = nn.Linear(w, cfg.num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean([2, 3]))


class EarlyStopping:
    def __init__(self, patience):
        self.patience = patience
        self.best = float("inf")
        self.bad_epochs = 0

    def step(self, val_loss):
        if val_loss < self.best:
            self.best = val_loss
            self.bad_epochs = 0
            return False
        self.bad_epochs += 1
        return self.bad_epochs > self.patience


def save_checkpoint(model, optimizer, step):
    buf = io.BytesIO()
    torch.save({"step": step, "model": model.state_dict(), "optim": optimizer.state_dict()}, buf)
    return buf.getvalue()


def train_step(model, optimizer, batch):
    model.train()
    x, y = batch
    optimizer.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    acc = (logits.argmax(1) == y).float().mean().item()
    return {"loss": loss.item(), "acc": acc}


@torch.no_grad()
def evaluate(model, batches):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for x, y in batches:
        logits = model(x)
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return {"val_loss": loss_sum / total, "val_acc": correct / total}


def run(steps):
    torch.manual_seed(0)
    cfg = Config()
    train_batches = make_batches(6, cfg.batch_size, seed=0)
    val_batches = make_batches(2, cfg.batch_size, seed=1)
    model = SmallConvNet(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    stopper = EarlyStopping(cfg.patience)
    history = {"loss": [], "acc": [], "val_loss": [], "val_acc": []}
    last_ckpt = None
    for step in range(steps):
        metrics = train_step(model, optimizer, train_batches[step % len(train_batches)])
        history["loss"].append(metrics["loss"])
        history["acc"].append(metrics["acc"])
        scheduler.step()
        if (step + 1) % cfg.eval_every == 0:
            val = evaluate(model, val_batches)
            history["val_loss"].append(val["val_loss"])
            history["val_acc"].append(val["val_acc"])
            last_ckpt = save_checkpoint(model, optimizer, step)
            if stopper.step(val["val_loss"]):
                history.setdefault("early_stop_step", step)
    return {"model": model, "history": history, "ckpt_bytes": len(last_ckpt or b"")}


if __name__ == "__main__":
    run(10)
