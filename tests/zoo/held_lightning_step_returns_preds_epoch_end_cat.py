# Source: https://github.com/ashleve/lightning-hydra-template/issues/458
# Shape: a template LightningModule's shared step returns the loss, the argmax predictions and the targets; training_step returns them in a dict and training_epoch_end concatenates every step's predictions: Lightning stores the outputs detached and the predictions are integer indices, so the list costs memory per batch but holds no graph.
# Verdict: clean
import torch
import torch.nn as nn
from pytorch_lightning import LightningModule
from torchmetrics import Accuracy


class MNISTLitModule(LightningModule):
    def __init__(self, net: nn.Module, lr: float = 1e-3):
        super().__init__()
        self.net = net
        self.lr = lr
        self.criterion = nn.CrossEntropyLoss()
        self.train_acc = Accuracy(task="multiclass", num_classes=10)

    def forward(self, x):
        return self.net(x)

    def step(self, batch):
        x, y = batch
        logits = self.forward(x)
        loss = self.criterion(logits, y)
        preds = torch.argmax(logits, dim=1)
        return loss, preds, y

    def training_step(self, batch, batch_idx):
        loss, preds, targets = self.step(batch)
        self.train_acc(preds, targets)
        self.log("train/loss", loss, on_step=False, on_epoch=True, prog_bar=True)
        return {"loss": loss, "preds": preds, "targets": targets}

    def training_epoch_end(self, outputs):
        all_preds = torch.cat([out["preds"] for out in outputs])
        all_targets = torch.cat([out["targets"] for out in outputs])
        self.log("train/epoch_acc", (all_preds == all_targets).float().mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
