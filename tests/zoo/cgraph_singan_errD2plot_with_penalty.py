# Source: https://github.com/tamarott/SinGAN/issues/141
# Shape: a SinGAN-style single-scale trainer backwards the real, fake and gradient-penalty terms of the critic one by one (the penalty from autograd.grad(create_graph=True)) and appends their attached sum errD to errD2plot for the loss curves; each critic step's double-backward graph nodes stay reachable from the plot list for the whole scale.
# Verdict: leak
import torch
import torch.nn as nn


def calc_gradient_penalty(netD, real_data, fake_data, LAMBDA=0.1):
    alpha = torch.rand(1, 1).expand(real_data.size())
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                    grad_outputs=torch.ones(disc_interpolates.size()),
                                    create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def conv_block(in_ch, out_ch):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, 1, 1), nn.BatchNorm2d(out_ch), nn.LeakyReLU(0.2))


class WDiscriminator(nn.Module):
    def __init__(self, nfc=16):
        super().__init__()
        self.body = nn.Sequential(conv_block(3, nfc), conv_block(nfc, nfc), nn.Conv2d(nfc, 1, 3, 1, 1))

    def forward(self, x):
        return self.body(x)


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, nfc=16):
        super().__init__()
        self.body = nn.Sequential(conv_block(3, nfc), conv_block(nfc, nfc), nn.Conv2d(nfc, 3, 3, 1, 1), nn.Tanh())

    def forward(self, noise, prev):
        return self.body(noise + prev) + prev


def train_single_scale(netD, netG, real, niter=10, Dsteps=3, alpha=10):
    optimizerD = torch.optim.Adam(netD.parameters(), lr=5e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=5e-4, betas=(0.5, 0.999))
    errD2plot, errG2plot, D_real2plot, D_fake2plot = [], [], [], []
    prev = torch.zeros_like(real)
    for epoch in range(niter):
        for j in range(Dsteps):
            netD.zero_grad()
            output = netD(real)
            errD_real = -output.mean()
            errD_real.backward()
            D_x = -errD_real.item()

            noise = torch.randn_like(real)
            fake = netG(noise, prev)
            output = netD(fake.detach())
            errD_fake = output.mean()
            errD_fake.backward()
            D_G_z = output.mean().item()

            gradient_penalty = calc_gradient_penalty(netD, real, fake.detach())
            gradient_penalty.backward()

            errD = errD_real + errD_fake + gradient_penalty
            optimizerD.step()

        errD2plot.append(errD)  # TLK301

        netG.zero_grad()
        output = netD(fake)
        errG = -output.mean()
        rec_loss = alpha * nn.functional.mse_loss(netG(torch.zeros_like(real), prev), real)
        (errG + rec_loss).backward()
        optimizerG.step()

        errG2plot.append(errG.detach() + rec_loss.detach())
        D_real2plot.append(D_x)
        D_fake2plot.append(D_G_z)
    return errD2plot, errG2plot, D_real2plot, D_fake2plot


if __name__ == "__main__":
    train_single_scale(WDiscriminator(), GeneratorConcatSkip2CleanAdd(), torch.randn(1, 3, 16, 16), niter=3)
