# Source: https://github.com/frgfm/holocron/pull/169
# Shape: Trainer.lr_find() appends the attached batch loss to self.loss_recorder and carries an exponentially smoothed loss (self._smooth_loss) built from the attached batch losses from one iteration to the next, so the recorder and the smoothing chain keep every iteration's graph alive.
# Verdict: clean
"""holocron-style Trainer with a learning-rate range test (lr_find) for an
image classifier, followed by plot_recorder() and a short fit."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, train_loader, val_loader, criterion, optimizer):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = criterion
        self.optimizer = optimizer
        self.step = 0
        self.lr_recorder, self.loss_recorder = [], []
        self._smooth_loss = 0.0

    def _get_loss(self, x, target):
        out = self.model(x)
        return self.criterion(out, target)

    def _backprop_step(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def _reset_opt(self, lr):
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def lr_find(self, start_lr=1e-7, end_lr=1.0, num_it=100, beta=0.9):
        """Gridsearch the optimal learning rate for the training."""
        if num_it > len(self.train_loader):
            raise ValueError("the value of `num_it` needs to be lower than the number of "
                             "available batches")
        self.model.train()
        state = {k: v.clone() for k, v in self.model.state_dict().items()}
        self._reset_opt(start_lr)
        gamma = (end_lr / start_lr) ** (1 / max(num_it - 1, 1))
        scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma)
        self.lr_recorder = [start_lr * gamma ** idx for idx in range(num_it)]
        self.loss_recorder = []
        self._smooth_loss = 0.0
        self.smooth_recorder = []

        for batch_idx, (x, target) in enumerate(self.train_loader):
            batch_loss = self._get_loss(x, target)
            self._backprop_step(batch_loss)
            if torch.isnan(batch_loss) or torch.isinf(batch_loss):
                break
            self.loss_recorder.append(batch_loss.item())
            self._smooth_loss = beta * self._smooth_loss + (1 - beta) * batch_loss.item()
            self.smooth_recorder.append(float(self._smooth_loss) / (1 - beta ** (batch_idx + 1)))
            scheduler.step()
            if batch_idx + 1 == num_it:
                break
        self.model.load_state_dict(state)

    def plot_recorder(self, skip_start=2, skip_end=1):
        """Return (lr, smoothed loss) pairs that would be plotted."""
        if len(self.lr_recorder) != len(self.loss_recorder):
            self.lr_recorder = self.lr_recorder[:len(self.loss_recorder)]
        lrs = self.lr_recorder[skip_start:len(self.smooth_recorder) - skip_end]
        losses = self.smooth_recorder[skip_start:-skip_end]
        return [(math.log10(lr), loss) for lr, loss in zip(lrs, losses)]

    def suggest_lr(self):
        points = self.plot_recorder()
        if len(points) < 2:
            return self.lr_recorder[0]
        grads = [points[i + 1][1] - points[i][1] for i in range(len(points) - 1)]
        return 10 ** points[grads.index(min(grads))][0]

    def fit_n_epochs(self, num_epochs, lr):
        self._reset_opt(lr)
        for _ in range(num_epochs):
            self.model.train()
            for x, target in self.train_loader[:4]:
                self._backprop_step(self._get_loss(x, target))
        return self.evaluate()

    @torch.inference_mode()
    def evaluate(self):
        self.model.eval()
        val_loss, correct, count = 0.0, 0, 0
        for x, target in self.val_loader:
            out = self.model(x)
            val_loss += self.criterion(out, target).item()
            correct += (out.argmax(1) == target).sum().item()
            count += x.shape[0]
        return dict(val_loss=val_loss / len(self.val_loader), acc=correct / count)


def make_model(num_classes=10):
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, num_classes))


def make_batches(n, batch_size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(batch_size, 3, 16, 16, generator=g),
             torch.randint(0, 10, (batch_size,), generator=g)) for _ in range(n)]


def run(steps):
    torch.manual_seed(0)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    trainer = Trainer(model, make_batches(steps, seed=1), make_batches(2, seed=2),
                      nn.CrossEntropyLoss(label_smoothing=0.1), optimizer)
    trainer.lr_find(start_lr=1e-5, end_lr=1.0, num_it=steps)
    lr = min(trainer.suggest_lr(), 0.1)
    metrics = trainer.fit_n_epochs(1, lr)
    print(f"suggested lr {lr:.2e} -> {metrics}")
    return trainer


if __name__ == "__main__":
    run(10)
