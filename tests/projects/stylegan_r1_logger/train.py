# Modelled on: https://github.com/rosinality/stylegan2-pytorch
"""Tiny StyleGAN2-flavoured training loop: logistic GAN loss, lazy R1 on D,
lazy path-length regularisation on G, EMA generator, text logger."""
import copy

import torch

import utils
from distributed import get_rank, reduce_loss_dict
from losses import d_logistic_loss, d_r1_loss, g_nonsaturating_loss, g_path_regularize
from model import Discriminator, Generator

ARGS = dict(batch=8, latent=16, size=8, r1=10.0, path_regularize=2.0,
            d_reg_every=2, g_reg_every=2, lr=2e-3, sample_every=5)


def train(args, loader, generator, discriminator, g_optim, d_optim, g_ema, logger, steps):
    mean_path_length = 0
    r1_loss = torch.tensor(0.0)
    path_loss = torch.tensor(0.0)
    loss_dict = {}
    latent_sensitivity = []
    samples = []
    sample_z = torch.randn(4, args["latent"])
    accum = 0.5 ** (32 / (10 * 1000))

    for idx in range(steps):
        real_img = next(loader)

        # ---- discriminator ----
        utils.requires_grad(generator, False)
        utils.requires_grad(discriminator, True)
        noise = torch.randn(args["batch"], args["latent"])
        fake_img, _ = generator(noise)
        fake_pred = discriminator(fake_img)
        real_pred = discriminator(real_img)
        d_loss = d_logistic_loss(real_pred, fake_pred)
        loss_dict["d"] = d_loss
        loss_dict["real_score"] = real_pred.mean()
        loss_dict["fake_score"] = fake_pred.mean()
        utils.zero_grad(discriminator)
        d_loss.backward()
        d_optim.step()

        if idx % args["d_reg_every"] == 0:
            real_img.requires_grad = True
            real_pred = discriminator(real_img)
            r1_loss = d_r1_loss(real_pred, real_img)
            utils.zero_grad(discriminator)
            (args["r1"] / 2 * r1_loss * args["d_reg_every"] + 0 * real_pred[0]).backward()
            d_optim.step()
        loss_dict["r1"] = r1_loss

        # ---- generator ----
        utils.requires_grad(generator, True)
        utils.requires_grad(discriminator, False)
        noise = torch.randn(args["batch"], args["latent"])
        fake_img, _ = generator(noise)
        fake_pred = discriminator(fake_img)
        g_loss = g_nonsaturating_loss(fake_pred)
        loss_dict["g"] = g_loss
        utils.zero_grad(generator)
        g_loss.backward()
        g_optim.step()

        if idx % args["g_reg_every"] == 0:
            path_batch = max(1, args["batch"] // 2)
            noise = torch.randn(path_batch, args["latent"])
            fake_img, latents = generator(noise, return_latents=True)
            path_loss, mean_path_length, path_grad = g_path_regularize(fake_img, latents, mean_path_length)
            utils.zero_grad(generator)
            (args["path_regularize"] * args["g_reg_every"] * path_loss).backward()
            g_optim.step()
            latent_sensitivity.append(path_grad)  # expect: TLK301
        loss_dict["path"] = path_loss

        utils.accumulate(g_ema, generator, accum)

        loss_reduced = reduce_loss_dict(loss_dict)
        if get_rank() == 0:
            logger.log(idx, d=loss_reduced["d"], g=loss_reduced["g"], r1=r1_loss,
                       path_length=mean_path_length)
            if idx % args["sample_every"] == 0:
                with torch.no_grad():
                    g_ema.eval()
                    sample, _ = g_ema(sample_z)
                    samples.append(sample)  # CLEAN: produced under torch.no_grad()
    return {"latent_sensitivity": latent_sensitivity, "samples": samples,
            "mean_path_length": mean_path_length}


def main(steps=10):
    torch.manual_seed(0)
    args = dict(ARGS)
    generator = Generator(args["latent"], size=args["size"])
    discriminator = Discriminator()
    g_ema = copy.deepcopy(generator).eval()
    utils.accumulate(g_ema, generator, 0)

    g_reg_ratio = args["g_reg_every"] / (args["g_reg_every"] + 1)
    d_reg_ratio = args["d_reg_every"] / (args["d_reg_every"] + 1)
    g_optim = torch.optim.Adam(generator.parameters(), lr=args["lr"] * g_reg_ratio,
                               betas=(0.0, 0.99 ** g_reg_ratio))
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=args["lr"] * d_reg_ratio,
                               betas=(0.0, 0.99 ** d_reg_ratio))
    logger = utils.TrainLogger()
    loader = utils.sample_data(args["batch"], args["size"], seed=1)
    out = train(args, loader, generator, discriminator, g_optim, d_optim, g_ema, logger, steps)
    print(logger.to_text().splitlines()[-1])
    out.update(generator=generator, discriminator=discriminator, g_ema=g_ema, logger=logger)
    return out


if __name__ == "__main__":
    main(20)
