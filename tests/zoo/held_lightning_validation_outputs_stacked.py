# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/2103
# Shape: a LightningModule returns {"val_loss": loss, "val_acc": acc} from validation_step and stacks the values in validation_epoch_end; Lightning runs validation under no_grad and detaches what it keeps from training_step, so the collected values carry no graph.
# Verdict: clean
import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F


class LitClassifier(pl.LightningModule):
    def __init__(self, hidden=128, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.l1 = nn.Linear(28 * 28, hidden)
        self.l2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x.view(x.size(0), -1))))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(1) == y).float().mean()
        return {"val_loss": loss, "val_acc": acc}

    def validation_epoch_end(self, outputs):
        avg_loss = torch.stack([x["val_loss"] for x in outputs]).mean()
        avg_acc = torch.stack([x["val_acc"] for x in outputs]).mean()
        self.log("val_loss", avg_loss)
        self.log("val_acc", avg_acc)
        return {"avg_val_loss": avg_loss.item()}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
