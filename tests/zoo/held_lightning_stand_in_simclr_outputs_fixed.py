# Source: https://github.com/TRI-ML/packnet-sfm/pull/51
# Shape: A Lightning-style mini trainer appends each training_step output dict, whose "loss" entry still carries the contrastive graph, to an epoch-long outputs list for training_epoch_end.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MiniLightningModule(nn.Module):
    """Tiny stand-in for the LightningModule hooks this script uses."""

    def training_step(self, batch, batch_idx):
        raise NotImplementedError

    def training_epoch_end(self, outputs):
        pass

    def configure_optimizers(self):
        raise NotImplementedError


class MiniTrainer:
    """Tiny stand-in for pl.Trainer(max_epochs=...).fit(module, loader)."""

    def __init__(self, max_epochs=1, log_every_n_steps=8):
        self.max_epochs = max_epochs
        self.log_every_n_steps = log_every_n_steps
        self.global_step = 0

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            outputs = []
            for batch_idx, batch in enumerate(train_dataloader):
                output = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                output["loss"].backward()
                optimizer.step()
                self.global_step += 1
                outputs.append({**output, "loss": output["loss"].detach()})
            module.training_epoch_end(outputs)


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    n = z1.shape[0]
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


class SimCLRModule(MiniLightningModule):
    def __init__(self, in_dim=32, feat=64, proj=16, lr=1e-3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, feat), nn.ReLU(), nn.Linear(feat, feat))
        self.projector = nn.Sequential(nn.ReLU(), nn.Linear(feat, proj))
        self.lr = lr
        self.epoch_losses = []

    def augment(self, x):
        return x * (1 + 0.1 * torch.randn_like(x)) + 0.05 * torch.randn_like(x)

    def training_step(self, batch, batch_idx):
        x = batch
        z1 = self.projector(self.encoder(self.augment(x)))
        z2 = self.projector(self.encoder(self.augment(x)))
        loss = nt_xent(z1, z2)
        with torch.no_grad():
            align = (F.normalize(z1, dim=1) * F.normalize(z2, dim=1)).sum(1).mean()
        return {"loss": loss, "align": align}

    def training_epoch_end(self, outputs):
        mean_loss = torch.stack([o["loss"] for o in outputs]).mean()
        mean_align = torch.stack([o["align"] for o in outputs]).mean()
        self.epoch_losses.append(float(mean_loss))
        print(f"epoch loss {float(mean_loss):.4f} align {float(mean_align):.4f}")

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def make_batches(n=24, seed=0, bs=16, in_dim=32):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(4, in_dim, generator=g)
    batches = []
    for _ in range(n):
        idx = torch.randint(0, 4, (bs,), generator=g)
        batches.append(centers[idx] + 0.3 * torch.randn(bs, in_dim, generator=g))
    return batches


def run(batches):
    torch.manual_seed(0)
    module = SimCLRModule()
    MiniTrainer(max_epochs=1).fit(module, batches)
    return module.epoch_losses


if __name__ == "__main__":
    run(make_batches())
