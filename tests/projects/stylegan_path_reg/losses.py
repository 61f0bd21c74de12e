# Modelled on the loss helpers of rosinality/stylegan2-pytorch (train.py: d_logistic_loss,
# d_r1_loss, g_nonsaturating_loss, g_path_regularize), moved into their own module as forks of it
# do. Here g_path_regularize detaches the running mean where the penalty uses it but returns it
# undetached, and the caller feeds it back in at the next call.
import math

import torch
from torch import autograd
from torch.nn import functional as F


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def d_r1_loss(real_pred, real_img):
    # create_graph=True is needed: the penalty is backwarded by the caller.
    (grad_real,) = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def g_path_regularize(fake_img, latents, mean_path_length, decay=0.01):
    noise = torch.randn_like(fake_img) / math.sqrt(fake_img.shape[2] * fake_img.shape[3])
    (grad,) = autograd.grad(outputs=(fake_img * noise).sum(), inputs=latents, create_graph=True)
    path_lengths = torch.sqrt(grad.pow(2).sum(1))
    path_mean = mean_path_length + decay * (path_lengths.mean() - mean_path_length)
    path_penalty = (path_lengths - path_mean.detach()).pow(2).mean()
    return path_penalty, path_mean, path_lengths


def discriminator_step(generator, discriminator, real_img, noise, d_optim):
    fake_img, _ = generator(noise)
    fake_pred = discriminator(fake_img.detach())
    real_pred = discriminator(real_img)
    d_loss = d_logistic_loss(real_pred, fake_pred)
    discriminator.zero_grad()
    # Nothing differentiates this graph again (the generator step makes its own fake batch), and
    # the caller keeps d_loss. Measured (train() with batch 4, 8x8 images): 10,272 B of saved
    # tensors stay reachable from the returned d_loss after the step with retain_graph=True, 0 B
    # without.
    # train.py's call in its loop now makes this a per-batch helper, but a helper keeping nothing
    # on self is judged as any later backward of the caller's iteration possibly using its graph
    # (the r1 and generator backwards follow), as within one file.
    d_loss.backward(retain_graph=True)  # known-miss: TLK201 (later backwards in the caller count as uses)
    d_optim.step()
    return d_loss, real_pred, fake_pred
