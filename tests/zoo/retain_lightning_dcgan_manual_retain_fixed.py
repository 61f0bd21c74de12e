# Source: https://github.com/Lightning-AI/pytorch-lightning/pull/5771
# Shape: fixed twin: the discriminator loss is backwarded once without retain_graph, so its saved activations are freed at backward even though errD stays in the step output.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    """Single-process stand-in for the parts of pl.LightningModule used here."""

    def __init__(self):
        super().__init__()
        self.automatic_optimization = True
        self._trainer = None
        self._logged = {}

    def optimizers(self):
        return self._trainer.optimizers

    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def log(self, name, value, prog_bar=False, on_step=True, on_epoch=False):
        self._logged[name] = value.detach() if isinstance(value, torch.Tensor) else value

    def toggle_optimizer(self, optimizer):
        own = {id(p) for g in optimizer.param_groups for p in g["params"]}
        for p in self.parameters():
            p.requires_grad_(id(p) in own)

    def untoggle_optimizer(self, optimizer):
        for p in self.parameters():
            p.requires_grad_(True)


class Trainer:
    def __init__(self, max_steps):
        self.max_steps = max_steps
        self.global_step = 0
        self.optimizers = []
        self._last_step_output = None

    def fit(self, model, train_dataloader):
        model._trainer = self
        self.optimizers = model.configure_optimizers()
        model.train()
        for batch_idx, batch in enumerate(train_dataloader):
            self._last_step_output = model.training_step(batch, batch_idx)
            self.global_step += 1
        model.on_train_epoch_end()
        return model._logged


class Generator(nn.Module):
    def __init__(self, latent_dim=16, img_dim=256):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 128),
                                   nn.LeakyReLU(0.2), nn.Linear(128, img_dim), nn.Tanh())

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim=256):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(img_dim, 256), nn.LeakyReLU(0.2), nn.Linear(256, 256),
                                   nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def forward(self, img):
        return self.model(img)


class GAN(LightningModule):
    def __init__(self, latent_dim=16, lr=2e-4):
        super().__init__()
        self.automatic_optimization = False
        self.latent_dim = latent_dim
        self.lr = lr
        self.generator = Generator(latent_dim)
        self.discriminator = Discriminator()

    def adversarial_loss(self, y_hat, y):
        return F.binary_cross_entropy_with_logits(y_hat, y)

    def _discriminator_step(self, imgs, opt_d):
        self.toggle_optimizer(opt_d)
        z = torch.randn(imgs.size(0), self.latent_dim)
        fake = self.generator(z).detach()
        real_loss = self.adversarial_loss(self.discriminator(imgs), torch.ones(imgs.size(0), 1))
        fake_loss = self.adversarial_loss(self.discriminator(fake), torch.zeros(imgs.size(0), 1))
        errD = (real_loss + fake_loss) / 2
        opt_d.zero_grad()
        self.manual_backward(errD)
        opt_d.step()
        self.untoggle_optimizer(opt_d)
        return errD

    def _generator_step(self, imgs, opt_g):
        self.toggle_optimizer(opt_g)
        z = torch.randn(imgs.size(0), self.latent_dim)
        errG = self.adversarial_loss(self.discriminator(self.generator(z)), torch.ones(imgs.size(0), 1))
        opt_g.zero_grad()
        self.manual_backward(errG)
        opt_g.step()
        self.untoggle_optimizer(opt_g)
        return errG

    def training_step(self, batch, batch_idx):
        imgs, _ = batch
        opt_g, opt_d = self.optimizers()
        errD = self._discriminator_step(imgs, opt_d)
        errG = self._generator_step(imgs, opt_g)
        self.log("d_loss", errD, prog_bar=True)
        self.log("g_loss", errG, prog_bar=True)
        return {"d_loss": errD, "g_loss": errG}

    def on_train_epoch_end(self):
        self.log("steps", self._trainer.global_step)

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        return [opt_g, opt_d]


def make_batches(n):
    return list(range(n))


def train_dataloader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.rand(64, 256, generator=g) * 2 - 1, torch.zeros(64, dtype=torch.long)


def run(batches):
    torch.manual_seed(0)
    model = GAN()
    trainer = Trainer(max_steps=len(batches))
    return trainer.fit(model, train_dataloader(batches))


if __name__ == "__main__":
    print(run(make_batches(4)))
