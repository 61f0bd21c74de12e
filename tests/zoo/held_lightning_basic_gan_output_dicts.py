# Source: https://github.com/Lightning-AI/tutorials/issues/132
# Shape: the Lightning basic-GAN tutorial's training_step builds an output dict whose "loss", "progress_bar" and "log" entries hold the graph-attached generator and discriminator losses; written for manual optimization, the module also appends every step's output dict to self.training_step_outputs for an epoch-end average, so each step's GAN graph stays alive until the epoch ends (the issue: returning non-detached tensors from training_step "may cause memory leaks if people follow those patterns").
# Verdict: leak
from collections import OrderedDict

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, latent_dim, img_shape):
        super().__init__()
        self.img_shape = img_shape
        out = int(torch.tensor(img_shape).prod())
        self.model = nn.Sequential(nn.Linear(latent_dim, 128), nn.LeakyReLU(0.2), nn.Linear(128, 256),
                                   nn.BatchNorm1d(256), nn.LeakyReLU(0.2), nn.Linear(256, out), nn.Tanh())

    def forward(self, z):
        return self.model(z).view(z.size(0), *self.img_shape)


class Discriminator(nn.Module):
    def __init__(self, img_shape):
        super().__init__()
        inp = int(torch.tensor(img_shape).prod())
        self.model = nn.Sequential(nn.Linear(inp, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1), nn.Sigmoid())

    def forward(self, img):
        return self.model(img.view(img.size(0), -1))


class GAN(L.LightningModule):
    def __init__(self, img_shape=(1, 28, 28), latent_dim=100, lr=2e-4):
        super().__init__()
        self.automatic_optimization = False
        self.latent_dim, self.lr = latent_dim, lr
        self.generator = Generator(latent_dim, img_shape)
        self.discriminator = Discriminator(img_shape)
        self.training_step_outputs = []

    def forward(self, z):
        return self.generator(z)

    @staticmethod
    def adversarial_loss(y_hat, y):
        return F.binary_cross_entropy(y_hat, y)

    def training_step(self, batch, batch_idx):
        imgs, _ = batch
        opt_g, opt_d = self.optimizers()
        z = torch.randn(imgs.size(0), self.latent_dim)
        valid = torch.ones(imgs.size(0), 1)
        fake = torch.zeros(imgs.size(0), 1)

        self.generated_imgs = self(z)
        g_loss = self.adversarial_loss(self.discriminator(self.generated_imgs), valid)
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()

        real_loss = self.adversarial_loss(self.discriminator(imgs), valid)
        fake_loss = self.adversarial_loss(self.discriminator(self.generated_imgs.detach()), fake)
        d_loss = (real_loss + fake_loss) / 2
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()

        tqdm_dict = {"g_loss": g_loss, "d_loss": d_loss}
        output = OrderedDict({"loss": g_loss, "progress_bar": tqdm_dict, "log": tqdm_dict})
        self.training_step_outputs.append(output)  # TLK102
        return output

    def on_train_epoch_end(self):
        avg_g = torch.stack([o["log"]["g_loss"] for o in self.training_step_outputs]).mean()
        avg_d = torch.stack([o["log"]["d_loss"] for o in self.training_step_outputs]).mean()
        self.log_dict({"epoch_g_loss": avg_g.item(), "epoch_d_loss": avg_d.item()})
        self.training_step_outputs.clear()

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        return [opt_g, opt_d]
