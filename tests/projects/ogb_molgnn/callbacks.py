"""Trainer callbacks: a base class, a prediction recorder and an early-stopping monitor."""
import torch


class Callback:
    def on_batch_end(self, step, outputs, batch):
        pass

    def on_epoch_end(self, epoch, metrics):
        pass


class PredictionRecorder(Callback):
    """Keeps per-batch predictions so an epoch-level ROC-AUC can be computed."""

    def __init__(self):
        self.preds, self.targets = [], []

    def on_batch_end(self, step, outputs, batch):
        self.preds.append(outputs)
        self.targets.append(batch["y"])

    def on_epoch_end(self, epoch, metrics):
        if self.preds:
            p = torch.cat(self.preds)
            t = torch.cat(self.targets)
            metrics["train_acc"] = float(((p > 0).float() == t).float().mean())
        self.preds, self.targets = [], []


class EarlyStopping(Callback):
    def __init__(self, patience=5):
        self.best, self.bad, self.patience = None, 0, patience
        self.best_scores = None

    def on_epoch_end(self, epoch, metrics):
        score = metrics.get("valid_loss")
        if score is None:
            return
        if self.best is None or score < self.best:
            self.best, self.bad = score, 0
            self.best_scores = metrics.get("valid_logits")
        else:
            self.bad += 1
