# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/8453
# Shape: LightningModule that collects per-batch losses and predictions in validation_step for on_validation_epoch_end (Lightning runs validation with gradients disabled, so nothing stored there carries a graph) and keeps only detached training losses for its epoch summary.
# Verdict: clean
import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class SegmentationModule(L.LightningModule):
    def __init__(self, net: nn.Module, num_classes=3, lr=1e-3):
        super().__init__()
        self.net = net
        self.num_classes = num_classes
        self.lr = lr
        self.train_losses = []
        self.val_outputs = []

    def forward(self, images):
        return self.net(images)

    def training_step(self, batch, batch_idx):
        images, masks = batch
        seg_loss = F.cross_entropy(self(images), masks)
        self.train_losses.append(seg_loss.detach())
        self.log("train_loss", seg_loss, on_step=True, prog_bar=True)
        return seg_loss

    def on_train_epoch_end(self):
        self.log("train_loss_epoch", torch.stack(self.train_losses).mean())
        self.train_losses.clear()

    def validation_step(self, batch, batch_idx):
        images, masks = batch
        logits = self(images)
        val_loss = F.cross_entropy(logits, masks)
        preds = logits.argmax(dim=1)
        intersection = ((preds == 1) & (masks == 1)).sum()
        union = ((preds == 1) | (masks == 1)).sum()
        self.val_outputs.append({"loss": val_loss, "inter": intersection, "union": union})
        return val_loss

    def on_validation_epoch_end(self):
        mean_loss = torch.stack([o["loss"] for o in self.val_outputs]).mean()
        iou = sum(o["inter"] for o in self.val_outputs) / sum(o["union"] for o in self.val_outputs).clamp(min=1)
        self.log_dict({"val_loss": mean_loss, "val_iou": iou.float()}, prog_bar=True)
        self.val_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
