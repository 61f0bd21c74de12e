# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# Shape: a LightningModule trains on the previous batch: training_step builds a pseudo ground truth for the current batch from the model's own output (one of the references) and keeps it on self for the next call; without detaching that output, the saved target carries the current step's graph into the next step's loss, whose backward then reaches weights the optimizer has stepped since (the maintainer's answer: detach the previous output).
# Verdict: leak
import torch
import torch.nn as nn
import pytorch_lightning as pl


class ExposureNet(pl.LightningModule):
    def __init__(self, n_refs=4, gamma_low=-1.0, gamma_high=1.0, lr=1e-3, tv_weight=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1), nn.Sigmoid())
        self.n_refs, self.gamma_low, self.gamma_high = n_refs, gamma_low, gamma_high
        self.lr, self.tv_weight = lr, tv_weight
        self.saved_input = None
        self.saved_target = None

    def score(self, refs):
        # well-exposedness: distance of the mean intensity from mid-grey, higher is better
        return -(refs.mean(dim=2, keepdim=True) - 0.5).abs()

    def make_pseudo_target(self, im):
        bs = im.shape[0]
        gammas = torch.exp(torch.empty(bs, self.n_refs).uniform_(self.gamma_low, self.gamma_high))
        synthetic = 1 - (1 - im[:, None]) ** gammas[:, :, None, None, None]
        previous_output = self.net(im)
        refs = torch.cat([im[:, None], previous_output[:, None], synthetic], dim=1)
        best = self.score(refs).argmax(dim=1, keepdim=True).expand(-1, 1, *im.shape[1:])
        return torch.gather(refs, 1, best).squeeze(1)

    def training_step(self, batch, batch_idx):
        current_target = self.make_pseudo_target(batch)
        loss = None
        if self.saved_input is not None:
            pred = self.net(self.saved_input)
            recon = (pred - self.saved_target).pow(2).mean()
            tv = (pred[..., 1:, :] - pred[..., :-1, :]).abs().mean()
            loss = recon + self.tv_weight * tv
            self.log("total_loss", loss)
        self.saved_input = batch
        self.saved_target = current_target  # TLK103
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.net.parameters(), lr=self.lr)
