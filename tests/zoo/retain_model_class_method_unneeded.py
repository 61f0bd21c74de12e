# Source: https://github.com/junyanz/BicycleGAN/issues/81
# Shape: image-translation model class whose per-batch optimize_parameters() retains the encoder/generator graph in backward_EG(); the only later backward is the discriminator's, on detached fakes, so the retained graph is never reused (the reporter removed it without error)
# Verdict: leak
import torch
import torch.nn as nn


class TranslationModel:
    def __init__(self, net_G, net_E, net_D, lr=2e-4):
        self.net_G, self.net_E, self.net_D = net_G, net_E, net_D
        self.gan_loss = nn.MSELoss()
        self.l1 = nn.L1Loss()
        self.opt_G = torch.optim.Adam(list(net_G.parameters()) + list(net_E.parameters()), lr=lr, betas=(0.5, 0.999))
        self.opt_D = torch.optim.Adam(net_D.parameters(), lr=lr, betas=(0.5, 0.999))

    def set_input(self, real_A, real_B):
        self.real_A, self.real_B = real_A, real_B

    def forward(self):
        self.mu, self.logvar = self.net_E(self.real_B)
        self.z = self.mu + torch.randn_like(self.mu) * torch.exp(0.5 * self.logvar)
        self.fake_B = self.net_G(self.real_A, self.z)

    def backward_EG(self):
        pred_fake = self.net_D(self.fake_B)
        loss_gan = self.gan_loss(pred_fake, torch.ones_like(pred_fake))
        loss_l1 = self.l1(self.fake_B, self.real_B) * 10.0
        loss_kl = -0.5 * torch.mean(1 + self.logvar - self.mu.pow(2) - self.logvar.exp()) * 0.01
        self.loss_G = loss_gan + loss_l1 + loss_kl
        self.loss_G.backward(retain_graph=True)  # TLK201

    def backward_D(self):
        pred_real = self.net_D(self.real_B)
        pred_fake = self.net_D(self.fake_B.detach())
        self.loss_D = 0.5 * (self.gan_loss(pred_real, torch.ones_like(pred_real))
                             + self.gan_loss(pred_fake, torch.zeros_like(pred_fake)))
        self.loss_D.backward()

    def optimize_parameters(self):
        self.forward()
        self.opt_G.zero_grad()
        self.backward_EG()
        self.opt_G.step()
        self.opt_D.zero_grad()
        self.backward_D()
        self.opt_D.step()


model = TranslationModel(generator, encoder, discriminator)
for epoch in range(200):
    for real_A, real_B in paired_loader:
        model.set_input(real_A, real_B)
        model.optimize_parameters()
