# Source: https://github.com/ueoo/AGIS-Net/issues/8
# Shape: a glyph-synthesis GAN model backwards the generator's adversarial and L1 losses with retain_graph=True and then backwards a local texture loss computed from the same generated images before one optimizer step; the second backward runs through the generator's graph, so the retained graph is needed and freed in the same iteration (the losses kept on self are overwritten every step).
# Verdict: clean
import torch
import torch.nn as nn


class GlyphGANModel:
    def __init__(self, netG, netD_shape, netD_color, lambda_l1=100.0, lambda_local=1.0, lr=2e-4):
        self.netG = netG
        self.netD_shape = netD_shape
        self.netD_color = netD_color
        self.lambda_l1 = lambda_l1
        self.lambda_local = lambda_local
        self.criterionGAN = nn.MSELoss()
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(netG.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(list(netD_shape.parameters()) + list(netD_color.parameters()), lr=lr)

    @staticmethod
    def set_requires_grad(nets, flag):
        for net in nets:
            for p in net.parameters():
                p.requires_grad = flag

    @staticmethod
    def local_patch(images, size=32):
        return images[..., :size, :size]

    def forward(self, batch):
        self.real_A, self.real_B, self.real_C = batch
        self.fake_B, self.fake_C = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD_shape(self.fake_B.detach()) + self.netD_color(self.fake_C.detach())
        pred_real = self.netD_shape(self.real_B) + self.netD_color(self.real_C)
        self.loss_D = 0.5 * (self.criterionGAN(pred_fake, torch.zeros_like(pred_fake))
                             + self.criterionGAN(pred_real, torch.ones_like(pred_real)))
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.netD_shape(self.fake_B) + self.netD_color(self.fake_C)
        self.loss_G_GAN = self.criterionGAN(pred_fake, torch.ones_like(pred_fake))
        self.loss_G_L1 = self.lambda_l1 * (self.criterionL1(self.fake_B, self.real_B) + self.criterionL1(self.fake_C, self.real_C))
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward(retain_graph=True)
        self.loss_local = self.lambda_local * self.criterionL1(self.local_patch(self.fake_C), self.local_patch(self.real_C))
        self.loss_local.backward()

    def optimize_parameters(self, batch):
        self.forward(batch)
        self.set_requires_grad([self.netD_shape, self.netD_color], True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.set_requires_grad([self.netD_shape, self.netD_color], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


def train(model, loader, epochs):
    for epoch in range(epochs):
        for batch in loader:
            model.optimize_parameters(batch)
        print(f"epoch {epoch}: G {model.loss_G.item():.3f} local {model.loss_local.item():.3f}")
