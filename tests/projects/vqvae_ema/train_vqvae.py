# Modelled on rosinality/vq-vae-2-pytorch (train_vqvae.py, vqvae.py, scheduler.py), with the
# parameter EMA and the running statistics that forks of it add: the script trains a VQ-VAE with
# an EMA codebook on reconstruction + commitment loss, steps a one-cycle schedule per iteration,
# saves reconstruction grids, and validates the EMA weights. Written anew and much smaller
# (one quantizer level instead of two); random 3x16x16 images stand in for the ImageFolder data.
import argparse

import torch
from torch import nn, optim

from ema import ModelEMA
from scheduler import CycleScheduler
from utils import EpochStats, reconstruct, validate
from vqvae import VQVAE


def make_batches(n, batch_size, size=16):
    return [(torch.randn(batch_size, 3, size, size).clamp(-1, 1), torch.zeros(batch_size, dtype=torch.long))
            for _ in range(n)]


def train(epoch, loader, model, optimizer, scheduler, ema, sample_every=4):
    criterion = nn.MSELoss()
    latent_loss_weight = 0.25
    sample_size = 4
    stats = EpochStats()
    samples = []
    mse_sum = 0
    mse_n = 0

    for i, (img, label) in enumerate(loader):
        model.zero_grad()
        out, latent_loss = model(img)
        recon_loss = criterion(out, img)
        latent_loss = latent_loss.mean()
        loss = recon_loss + latent_loss_weight * latent_loss
        loss.backward()
        if scheduler is not None:
            scheduler.step()
        optimizer.step()
        ema.update(model)  # a carried state: ModelEMA.update blends parameters that require grad into ema.shadow (reported at ema.py:12, the one call)

        mse_sum += recon_loss.item() * img.shape[0]
        mse_n += img.shape[0]
        stats.update(img.shape[0], mse=recon_loss.item(), latent=latent_loss)  # expect: TLK101 (utils.py) (the attached latent_loss goes in as a keyword; EpochStats.update sums each **values item into self.sums[key])

        if i % sample_every == 0:
            samples.append(reconstruct(model, img[:sample_size]))
            print("epoch: {}; it {}; avg mse: {:.5f}; {}".format(epoch + 1, i, mse_sum / mse_n, stats.line()))
    return samples


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epoch", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--sched", type=str, default="cycle")
    parser.add_argument("--iters", type=int, default=8)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    loader = make_batches(args.iters, 8)
    val_loader = make_batches(2, 8)
    model = VQVAE()
    ema = ModelEMA(model)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    scheduler = None
    if args.sched == "cycle":
        scheduler = CycleScheduler(optimizer, args.lr, n_iter=len(loader) * args.epoch)

    for i in range(args.epoch):
        samples = train(i, loader, model, optimizer, scheduler, ema)
        print("epoch {}: {} sample grids; val (EMA weights) {}".format(
            i + 1, len(samples), validate(ema.averaged_copy(model, VQVAE), val_loader, nn.MSELoss(), 0.25)))


if __name__ == "__main__":
    main()
