# Source: https://github.com/rosinality/stylegan2-pytorch/blob/0ecf8ffd8319de72bdf97e44fb02121684df5a44/train.py
# Shape: StyleGAN2 lazy R1 regularization: a helper returns the R1 penalty built with create_graph=True, it is backwarded every few steps, and the tensor is stored in one dict slot that the next regularization step overwrites; at most one (already backwarded) graph is held, nothing accumulates
# Verdict: clean
import torch
from torch import autograd


def d_r1_loss(real_pred, real_img):
    (grad_real,) = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


loss_dict = {}
for idx in range(args.iter):
    real_img = next(loader)
    requires_grad(generator, False)
    requires_grad(discriminator, True)
    fake_img, _ = generator(mixing_noise(args.batch, args.latent, args.mixing))
    fake_pred = discriminator(fake_img)
    real_pred = discriminator(real_img)
    d_loss = d_logistic_loss(real_pred, fake_pred)
    loss_dict["d"] = d_loss
    discriminator.zero_grad()
    d_loss.backward()
    d_optim.step()

    if idx % args.d_reg_every == 0:
        real_img.requires_grad = True
        real_pred = discriminator(real_img)
        r1_loss = d_r1_loss(real_pred, real_img)
        discriminator.zero_grad()
        (args.r1 / 2 * r1_loss * args.d_reg_every + 0 * real_pred[0]).backward()
        d_optim.step()
        loss_dict["r1"] = r1_loss

    reduced = {k: v.mean().item() for k, v in loss_dict.items()}
