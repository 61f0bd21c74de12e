# Source: https://github.com/Lightning-AI/pytorch-lightning/pull/16520
# Shape: after the epoch-end hooks that received every step's outputs were removed, a LightningModule keeps its own list: training_step appends the loss tensor it returns to self.step_losses and on_train_epoch_end stacks and clears it; the losses are still attached, so every training step's graph is held until the epoch ends (the validation list is filled under Lightning's no_grad and holds no graph).
# Verdict: leak
import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class LitRegressor(L.LightningModule):
    def __init__(self, in_dim=16, lr=1e-3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, 1))
        self.lr = lr
        self.step_losses = []
        self.val_losses = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.net(x).squeeze(-1), y)
        self.step_losses.append(loss)  # TLK102
        return loss

    def on_train_epoch_end(self):
        self.log("train_epoch_mean", torch.stack(self.step_losses).mean())
        self.step_losses.clear()

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.net(x).squeeze(-1), y)
        self.val_losses.append(loss)

    def on_validation_epoch_end(self):
        self.log("val_epoch_mean", torch.stack(self.val_losses).mean())
        self.val_losses.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
