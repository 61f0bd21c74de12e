# Source: https://github.com/pytorch/pytorch/issues/144181
# Shape: a mixed-precision GAN loop (GradScaler per network) averages the discriminator and generator losses by adding the graph-attached tensors to float accumulators; both accumulators chain every step's graph.
# Verdict: leak
import torch
from torch.amp import GradScaler, autocast


def train_epoch(generator, discriminator, loader, optim_g, optim_d, feature_loss, adv_loss):
    scaler_g = GradScaler("cuda")
    scaler_d = GradScaler("cuda")
    epoch_disc_loss = 0.0
    epoch_gen_loss = 0.0
    for wave, mel in loader:
        wave, mel = wave.cuda(), mel.cuda()
        with autocast("cuda", dtype=torch.float16):
            fake = generator(mel)
            real_score, fake_score = discriminator(wave, fake.detach())
            loss_disc = adv_loss(real_score, fake_score)
        optim_d.zero_grad()
        scaler_d.scale(loss_disc).backward()
        scaler_d.step(optim_d)
        scaler_d.update()

        with autocast("cuda", dtype=torch.float16):
            _, fake_score = discriminator(wave, fake)
            loss_gen = adv_loss(None, fake_score) + 45 * feature_loss(wave, fake)
        optim_g.zero_grad()
        scaler_g.scale(loss_gen).backward()
        scaler_g.step(optim_g)
        scaler_g.update()

        epoch_disc_loss += loss_disc  # TLK101
        epoch_gen_loss += loss_gen  # TLK101
    n = len(loader)
    return epoch_disc_loss / n, epoch_gen_loss / n
