# Source: https://github.com/jolibrain/joliGEN/pull/281
# Shape: a DCGAN step computes the discriminator loss on fake.detach() and calls backward(retain_graph=True) on it; the generator loss then runs a fresh discriminator forward on the non-detached fake, so nothing goes through the discriminator loss's graph again and the retained graph only stays alive until the next iteration.
# Verdict: leak
import torch
import torch.nn as nn


class GANModel:
    def __init__(self, netG, netD, nz, lr=2e-4):
        self.netG, self.netD, self.nz = netG, netD, nz
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizer_G = torch.optim.Adam(netG.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(netD.parameters(), lr=lr, betas=(0.5, 0.999))

    def compute_D_loss(self, real, fake):
        pred_real = self.netD(real)
        pred_fake = self.netD(fake.detach())
        loss_real = self.criterion(pred_real, torch.ones_like(pred_real))
        loss_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        return (loss_real + loss_fake) * 0.5

    def compute_G_loss(self, fake):
        pred_fake = self.netD(fake)
        return self.criterion(pred_fake, torch.ones_like(pred_fake))

    def optimize_parameters(self, real):
        noise = torch.randn(real.size(0), self.nz)
        fake = self.netG(noise)
        self.optimizer_D.zero_grad()
        loss_D = self.compute_D_loss(real, fake)
        loss_D.backward(retain_graph=True)  # TLK201
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        loss_G = self.compute_G_loss(fake)
        loss_G.backward()
        self.optimizer_G.step()
        return {"D": loss_D.item(), "G": loss_G.item()}


def train(model, loader, epochs=1):
    log = []
    for epoch in range(epochs):
        for real in loader:
            log.append(model.optimize_parameters(real))
    return log
