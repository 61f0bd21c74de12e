"""Losses and regularisers from lucidrains/stylegan2-pytorch (stylegan2_pytorch.py)."""
import math

import torch
import torch.nn.functional as F
from torch.autograd import grad as torch_grad


def gradient_penalty(images, output, weight=10, center=0.):
    batch_size = images.shape[0]
    gradients = torch_grad(outputs=output, inputs=images,
                           grad_outputs=torch.ones(output.size(), device=images.device),
                           create_graph=True, retain_graph=True, only_inputs=True)[0]

    gradients = gradients.reshape(batch_size, -1)
    return weight * ((gradients.norm(2, dim=1) - center) ** 2).mean()


def calc_pl_lengths(styles, images):
    device = images.device
    num_pixels = images.shape[2] * images.shape[3]
    pl_noise = torch.randn(images.shape, device=device) / math.sqrt(num_pixels)
    outputs = (images * pl_noise).sum()

    pl_grads = torch_grad(outputs=outputs, inputs=styles,
                          grad_outputs=torch.ones(outputs.shape, device=device),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]

    return (pl_grads ** 2).sum(dim=2).mean(dim=1).sqrt()


def gen_hinge_loss(fake, real):
    return fake.mean()


def hinge_loss(fake, real):
    return (F.relu(1 + real) + F.relu(1 - fake)).mean()


def dual_contrastive_loss(fake_logits, real_logits):
    device = real_logits.device
    real_logits, fake_logits = map(lambda t: t.reshape(-1, 1), (real_logits, fake_logits))

    def loss_half(t1, t2):
        t1 = t1.reshape(-1, 1)
        t2 = t2.reshape(1, -1).expand(t1.shape[0], -1)
        t = torch.cat((t1, t2), dim=-1)
        return F.cross_entropy(t, torch.zeros(t1.shape[0], device=device, dtype=torch.long))

    return loss_half(real_logits, fake_logits) + loss_half(-fake_logits, -real_logits)
