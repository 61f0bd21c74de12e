# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/15514
# Shape: the LightningModule keeps detached losses from training_step, and raw outputs from validation_step, which Lightning already runs under no_grad.
# Verdict: clean
import lightning.pytorch as pl
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
        self.train_losses = []
        self.val_logits = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.backbone(x), y)
        self.train_losses.append(loss.detach())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self.backbone(x)
        self.val_logits.append(logits)

    def on_train_epoch_end(self):
        self.log("train_loss_epoch", torch.stack(self.train_losses).mean())
        self.train_losses.clear()

    def on_validation_epoch_end(self):
        self.log("val_max_logit", torch.cat(self.val_logits).max())
        self.val_logits.clear()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
