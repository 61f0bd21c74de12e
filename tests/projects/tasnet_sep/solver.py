"""Training / cross-validation driver (shape follows kaituoxu/Conv-TasNet src/solver.py)."""
import time

import torch

from pit_criterion import cal_loss
from utils import LossTracker, SNRSmoother, ExampleBank


class Solver:
    def __init__(self, tr_loader, cv_loader, model, optimizer, epochs=2, max_norm=5.0, print_freq=4):
        self.tr_loader = tr_loader
        self.cv_loader = cv_loader
        self.model = model
        self.optimizer = optimizer
        self.epochs = epochs
        self.max_norm = max_norm
        self.print_freq = print_freq
        self.tr_loss = torch.zeros(epochs)
        self.cv_loss = torch.zeros(epochs)
        self.snr_smoother = SNRSmoother()
        self.train_examples = ExampleBank()
        self.cv_examples = ExampleBank()

    def train(self):
        for epoch in range(self.epochs):
            self.model.train()
            start = time.time()
            tr_avg = self._run_one_epoch(epoch)
            self.model.eval()
            with torch.no_grad():
                cv_avg = self._run_one_epoch(epoch, cross_valid=True)
            self.tr_loss[epoch] = tr_avg
            self.cv_loss[epoch] = cv_avg
            print(f"epoch {epoch + 1} | train {tr_avg:.3f} | valid {cv_avg:.3f} | {time.time() - start:.1f}s")
        return self.tr_loss, self.cv_loss

    def _run_one_epoch(self, epoch, cross_valid=False):
        total_loss = 0.0
        tracker = LossTracker()
        loader = self.cv_loader if cross_valid else self.tr_loader
        i = 0
        for i, (mixture, lengths, source) in enumerate(loader):
            estimate = self.model(mixture)
            loss, max_snr, estimate, reordered = cal_loss(source, estimate, lengths)
            if not cross_valid:
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
                self.optimizer.step()
                tracker.update(loss, mixture.size(0))  # expect: TLK101 (utils.py)
                snr = self.snr_smoother.update(max_snr.mean())  # expect: TLK103 (utils.py)
                self.train_examples.add(reordered.detach())
            else:
                # runs under torch.no_grad() (see train()): nothing here is attached
                self.cv_examples.add(reordered)
                snr = max_snr.mean()
            total_loss += loss.item()
            if i % self.print_freq == 0:
                print(f"  epoch {epoch + 1} iter {i + 1} | avg {total_loss / (i + 1):.3f} | "
                      f"cur {loss.item():.3f} | snr {float(snr):.2f}")
        if not cross_valid:
            print(f"  tracker avg {tracker.avg:.3f}")
        return total_loss / (i + 1)
