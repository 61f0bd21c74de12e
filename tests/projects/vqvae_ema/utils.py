"""Running statistics for the progress line, reconstructions for the sample grid, validation."""
import torch


class EpochStats:
    def __init__(self):
        self.sums = {}
        self.count = 0

    def update(self, n, **values):
        for key, value in values.items():
            self.sums[key] = self.sums.get(key, 0.0) + value * n
        self.count += n

    def means(self):
        return {key: float(total) / max(self.count, 1) for key, total in self.sums.items()}

    def line(self):
        return "; ".join("{}: {:.5f}".format(k, v) for k, v in self.means().items())


@torch.no_grad()
def reconstruct(model, sample):
    was_training = model.training
    model.eval()
    out, _ = model(sample)
    model.train(was_training)
    return torch.cat([sample, out], 0)


@torch.no_grad()
def validate(model, loader, criterion, latent_loss_weight):
    model.eval()
    stats = EpochStats()
    for img, _ in loader:
        out, latent_loss = model(img)
        recon_loss = criterion(out, img)
        stats.update(img.shape[0], mse=recon_loss, latent=latent_loss.mean() * latent_loss_weight)
    model.train()
    return stats.means()
