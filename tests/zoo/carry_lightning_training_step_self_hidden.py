# Source: https://lightning.ai/docs/pytorch/stable/_sources/common/tbptt.rst.txt
# Shape: a LightningModule keeps the recurrent state on self between training_step calls (one call per batch) and feeds it back without detaching; the second batch's backward reaches the first batch's freed graph
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


class StreamingGRU(pl.LightningModule):
    def __init__(self, n_in=16, n_hidden=64):
        super().__init__()
        self.gru = nn.GRU(n_in, n_hidden, batch_first=True)
        self.proj = nn.Linear(n_hidden, n_in)
        self.hidden = None

    def training_step(self, batch, batch_idx):
        inputs, targets = batch
        outputs, self.hidden = self.gru(inputs, self.hidden)  # TLK103
        loss = F.mse_loss(self.proj(outputs), targets)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
