# Source: https://lightning.ai/docs/pytorch/stable/_sources/common/tbptt.rst.txt
# Shape: manual-optimization TBPTT in a LightningModule: the batch is split along time, the state is carried from split to split and detached after each optimizer step
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


class ChunkedRNN(pl.LightningModule):
    def __init__(self, k=10, n_in=8, n_hidden=32):
        super().__init__()
        self.automatic_optimization = False
        self.k = k
        self.n_hidden = n_hidden
        self.rnn = nn.GRU(n_in, n_hidden, batch_first=True)
        self.readout = nn.Linear(n_hidden, 1)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        seq, target = batch
        state = torch.zeros(1, seq.size(0), self.n_hidden, device=self.device)
        for t0 in range(0, seq.size(1), self.k):
            piece = seq[:, t0:t0 + self.k]
            out, state = self.rnn(piece, state)
            loss = F.mse_loss(self.readout(out), target[:, t0:t0 + self.k])
            opt.zero_grad()
            self.manual_backward(loss)
            opt.step()
            state = state.detach()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
