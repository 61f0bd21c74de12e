# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# Shape: the LightningModule that trains on the previous batch, as the repository has it: the model's own output used as a reference for the pseudo ground truth is detached (.clone().detach()), so the target kept on self for the next training_step is a constant and each step backwards only its own graph.
# Verdict: clean
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
        previous_output = self.net(im).clone().detach()
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
        self.saved_target = current_target
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.net.parameters(), lr=self.lr)
