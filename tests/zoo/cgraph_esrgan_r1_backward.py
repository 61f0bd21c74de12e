# Source: https://github.com/XPixelGroup/BasicSR/blob/b0ee3c8414bd39da34f0216cd6bfd8110b85da60/basicsr/losses/gan_loss.py
# Shape: the R1 penalty gets the input gradient via real_pred.sum().backward(create_graph=True) instead of autograd.grad, which also gives every discriminator .grad a graph; the trainer zeroes .grad in place rather than resetting it to None, so each iteration's double-backward graph is chained onto the grads.
# Verdict: leak
from collections import OrderedDict
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class SRGANOpt:
    scale: int = 2
    num_feat: int = 16
    num_block: int = 2
    gt_size: int = 16
    batch_size: int = 4
    lr_g: float = 1e-4
    lr_d: float = 1e-4
    pixel_weight: float = 1.0
    gan_weight: float = 5e-3
    r1_reg_weight: float = 1.0
    net_d_iters: int = 1
    net_d_init_iters: int = 0


class ResidualBlockNoBN(nn.Module):
    def __init__(self, num_feat):
        super().__init__()
        self.conv1 = nn.Conv2d(num_feat, num_feat, 3, 1, 1)
        self.conv2 = nn.Conv2d(num_feat, num_feat, 3, 1, 1)

    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(x)))


class MSRResNet(nn.Module):
    def __init__(self, opt: SRGANOpt):
        super().__init__()
        self.conv_first = nn.Conv2d(3, opt.num_feat, 3, 1, 1)
        self.body = nn.Sequential(*[ResidualBlockNoBN(opt.num_feat) for _ in range(opt.num_block)])
        self.upconv = nn.Conv2d(opt.num_feat, opt.num_feat * opt.scale ** 2, 3, 1, 1)
        self.pixel_shuffle = nn.PixelShuffle(opt.scale)
        self.conv_last = nn.Conv2d(opt.num_feat, 3, 3, 1, 1)
        self.scale = opt.scale

    def forward(self, x):
        feat = F.leaky_relu(self.conv_first(x), 0.1)
        out = self.body(feat)
        out = F.leaky_relu(self.pixel_shuffle(self.upconv(out)), 0.1)
        return self.conv_last(out) + F.interpolate(x, scale_factor=self.scale, mode='bilinear', align_corners=False)


class VGGStyleDiscriminator(nn.Module):
    def __init__(self, num_feat=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, num_feat, 3, 1, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(num_feat, num_feat, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(num_feat, num_feat * 2, 4, 2, 1), nn.LeakyReLU(0.2))
        self.linear = nn.Linear(num_feat * 2 * 4 * 4, 1)

    def forward(self, x):
        return self.linear(self.body(x).flatten(1))


class GANLoss(nn.Module):
    def __init__(self, loss_weight=1.0):
        super().__init__()
        self.loss_weight = loss_weight
        self.loss = nn.BCEWithLogitsLoss()

    def forward(self, input, target_is_real, is_disc=False):
        target = torch.ones_like(input) if target_is_real else torch.zeros_like(input)
        loss = self.loss(input, target)
        return loss if is_disc else loss * self.loss_weight


def r1_penalty(real_pred, real_img):
    """R1 regularization for the discriminator (Eq. 9 in 'Which training methods for GANs do actually converge')."""
    real_pred.sum().backward(create_graph=True)  # TLK302
    grad_real = real_img.grad
    grad_penalty = grad_real.pow(2).view(grad_real.shape[0], -1).sum(1).mean()
    return grad_penalty


class SRGANModel:
    def __init__(self, opt: SRGANOpt):
        self.opt = opt
        self.net_g = MSRResNet(opt)
        self.net_d = VGGStyleDiscriminator(opt.num_feat)
        self.cri_pix = nn.L1Loss()
        self.cri_gan = GANLoss(loss_weight=opt.gan_weight)
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=opt.lr_g, betas=(0.9, 0.99))
        self.optimizer_d = torch.optim.Adam(self.net_d.parameters(), lr=opt.lr_d, betas=(0.9, 0.99))
        self.log_dict = OrderedDict()
        self.history = []

    def feed_data(self, data):
        self.lq = data['lq']
        self.gt = data['gt']

    @staticmethod
    def _zero_grad_(net):
        # reuse the existing .grad buffers instead of reallocating them every iteration
        for p in net.parameters():
            if p.grad is not None:
                p.grad.zero_()

    def optimize_parameters(self, current_iter):
        # optimize net_g
        for p in self.net_d.parameters():
            p.requires_grad = False
        self.optimizer_g.zero_grad()
        self.output = self.net_g(self.lq)
        loss_dict = OrderedDict()
        l_g_total = 0
        if current_iter % self.opt.net_d_iters == 0 and current_iter > self.opt.net_d_init_iters:
            l_g_pix = self.cri_pix(self.output, self.gt) * self.opt.pixel_weight
            l_g_total += l_g_pix
            loss_dict['l_g_pix'] = l_g_pix
            fake_g_pred = self.net_d(self.output)
            l_g_gan = self.cri_gan(fake_g_pred, True, is_disc=False)
            l_g_total += l_g_gan
            loss_dict['l_g_gan'] = l_g_gan
            l_g_total.backward()
            self.optimizer_g.step()

        # optimize net_d
        for p in self.net_d.parameters():
            p.requires_grad = True
        self._zero_grad_(self.net_d)
        real_d_pred = self.net_d(self.gt)
        l_d_real = self.cri_gan(real_d_pred, True, is_disc=True)
        loss_dict['l_d_real'] = l_d_real
        l_d_real.backward()
        fake_d_pred = self.net_d(self.output.detach())
        l_d_fake = self.cri_gan(fake_d_pred, False, is_disc=True)
        loss_dict['l_d_fake'] = l_d_fake
        l_d_fake.backward()

        # lazy-free R1 on real images
        real_img = self.gt.detach().requires_grad_(True)
        real_pred = self.net_d(real_img)
        l_d_r1 = self.opt.r1_reg_weight / 2 * r1_penalty(real_pred, real_img)
        loss_dict['l_d_r1'] = l_d_r1
        l_d_r1.backward()
        self.optimizer_d.step()

        self.log_dict = self.reduce_loss_dict(loss_dict)
        self.history.append(dict(self.log_dict))

    @staticmethod
    def reduce_loss_dict(loss_dict):
        with torch.no_grad():
            return OrderedDict((name, value.mean().item()) for name, value in loss_dict.items())


def make_batches(n_steps, opt=None, seed=0):
    opt = opt or SRGANOpt()
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_steps):
        gt = torch.rand(opt.batch_size, 3, opt.gt_size, opt.gt_size, generator=g)
        lq = F.avg_pool2d(gt, opt.scale)
        out.append({'lq': lq, 'gt': gt})
    return out


def run(steps):
    torch.manual_seed(0)
    opt = SRGANOpt()
    model = SRGANModel(opt)
    for current_iter, data in enumerate(make_batches(steps, opt), start=1):
        model.feed_data(data)
        model.optimize_parameters(current_iter)
    return model


if __name__ == "__main__":
    run(10)
