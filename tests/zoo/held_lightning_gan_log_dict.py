# Source: https://github.com/Lightning-AI/pytorch-lightning/pull/6294
# Shape: the manually optimized LightningModule GAN reports its losses through self.log_dict, which detaches and reduces them itself; the module keeps only a float counter of steps, so no loss tensor outlives its training_step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L


class ConditionalGAN(L.LightningModule):
    def __init__(self, generator: nn.Module, discriminator: nn.Module, z_dim=64, lr=2e-4):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator
        self.z_dim = z_dim
        self.lr = lr
        self.automatic_optimization = False
        self.d_steps = 0

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        return opt_g, opt_d

    def training_step(self, batch, batch_idx):
        imgs, labels = batch
        opt_g, opt_d = self.optimizers()
        z = torch.randn(imgs.size(0), self.z_dim, device=self.device)

        fake = self.generator(z, labels)
        d_fake_for_g = self.discriminator(fake, labels)
        g_loss = F.binary_cross_entropy_with_logits(d_fake_for_g, torch.ones_like(d_fake_for_g))
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()

        d_real = self.discriminator(imgs, labels)
        d_fake = self.discriminator(fake.detach(), labels)
        real_loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real))
        fake_loss = F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        d_loss = (real_loss + fake_loss) / 2
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        self.d_steps += 1

        self.log_dict(
            {
                "g_loss": g_loss,
                "d_loss": d_loss,
                "d_real": torch.sigmoid(d_real).mean(),
                "d_fake": torch.sigmoid(d_fake).mean(),
            },
            prog_bar=True,
            on_step=True,
            on_epoch=True,
        )
