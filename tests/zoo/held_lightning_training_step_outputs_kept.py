# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/8453
# Shape: LightningModule that keeps what its training_step computes for an epoch-level summary: training_step appends the attached loss to self.training_step_outputs and on_train_epoch_end stacks and clears them, so each step's autograd graph lives until the epoch ends.
# Verdict: leak
import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(L.LightningModule):
    def __init__(self, vocab_size=5000, embed_dim=128, num_classes=4, lr=2e-3):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim)
        self.encoder = nn.Sequential(nn.Linear(embed_dim, 256), nn.GELU(), nn.Dropout(0.1), nn.Linear(256, 256), nn.GELU())
        self.classifier = nn.Linear(256, num_classes)
        self.lr = lr
        self.training_step_outputs = []

    def forward(self, token_ids):
        return self.classifier(self.encoder(self.embedding(token_ids)))

    def training_step(self, batch, batch_idx):
        token_ids, labels = batch
        logits = self(token_ids)
        ce = F.cross_entropy(logits, labels)
        self.training_step_outputs.append(ce)  # TLK102
        self.log("train/loss", ce, prog_bar=True)
        return ce

    def on_train_epoch_end(self):
        epoch_loss = torch.stack(self.training_step_outputs).mean()
        self.log("train/epoch_loss", epoch_loss)
        self.training_step_outputs.clear()

    def validation_step(self, batch, batch_idx):
        token_ids, labels = batch
        acc = (self(token_ids).argmax(dim=-1) == labels).float().mean()
        self.log("val/acc", acc, prog_bar=True)

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=0.01)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
        return {"optimizer": optimizer, "lr_scheduler": scheduler}
