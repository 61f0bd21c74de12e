# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/8583
# Shape: a small trainer hands each training step's output dict to its callbacks; an export callback buffers every batch's outputs in on_train_batch_end to summarise them at epoch end, but the dict holds the attached loss and a soft-Dice score computed outside any backward, so each batch's whole forward graph (saved activations included) stays alive until the epoch ends.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySegNet(nn.Module):
    def __init__(self, channels=3, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.mask_head = nn.Conv2d(width, 1, 1)

    def training_step(self, batch, batch_idx):
        images, masks = batch
        logits = self.mask_head(self.body(images))
        bce = F.binary_cross_entropy_with_logits(logits, masks)
        probs = torch.sigmoid(logits)
        dice = (2 * (probs * masks).sum() + 1) / (probs.sum() + masks.sum() + 1)
        return {"loss": bce, "dice": dice}


class Callback:
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass

    def on_train_epoch_end(self, trainer, module):
        pass


class MetricsExport(Callback):
    def __init__(self):
        self.step_outputs = []
        self.epoch_summaries = []

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.step_outputs.append(outputs)  # TLK102

    def on_train_epoch_end(self, trainer, module):
        mean_loss = torch.stack([o["loss"] for o in self.step_outputs]).mean().item()
        mean_dice = torch.stack([o["dice"] for o in self.step_outputs]).mean().item()
        self.epoch_summaries.append({"epoch": trainer.epoch, "loss": mean_loss, "dice": mean_dice})
        self.step_outputs.clear()


class MiniTrainer:
    def __init__(self, callbacks=(), max_epochs=1, lr=1e-3):
        self.callbacks = list(callbacks)
        self.max_epochs = max_epochs
        self.lr = lr
        self.epoch = 0

    def fit(self, module, loader):
        opt = torch.optim.Adam(module.parameters(), lr=self.lr)
        for self.epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                outputs = module.training_step(batch, batch_idx)
                opt.zero_grad()
                outputs["loss"].backward()
                opt.step()
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, outputs, batch, batch_idx)
            for cb in self.callbacks:
                cb.on_train_epoch_end(self, module)
