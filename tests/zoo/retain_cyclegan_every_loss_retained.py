# Source: https://github.com/Asthestarsfalll/Symbolic-Music-Genre-Transfer-with-CycleGAN-for-pytorch/issues/4
# Shape: a CycleGAN trainer (genre transfer on piano-roll patches) backwards every loss with retain_graph=True; the second generator loss does need the first one's graph (they share the cycle terms), but nothing after the second generator backward goes through the generators' graph (the discriminators see detached fakes) and the two discriminator graphs are never reused, so three retained graphs stay alive into the next step (the report: memory explodes even at batch size 1).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def patch_disc(channels=1):
    return nn.Sequential(nn.Conv2d(channels, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 1, 4, 1, 1))


def resnet_gen(channels=1):
    return nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, channels, 3, padding=1), nn.Sigmoid())


class GenreCycleGAN:
    def __init__(self, cycle_weight=10.0, lr=2e-4):
        self.G_ab, self.G_ba = resnet_gen(), resnet_gen()
        self.D_a, self.D_b = patch_disc(), patch_disc()
        self.cycle_weight = cycle_weight
        self.opt_g = torch.optim.Adam(list(self.G_ab.parameters()) + list(self.G_ba.parameters()), lr=lr, betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(list(self.D_a.parameters()) + list(self.D_b.parameters()), lr=lr, betas=(0.5, 0.999))

    def train_step(self, real_a, real_b):
        fake_b = self.G_ab(real_a)
        fake_a = self.G_ba(real_b)
        cycle = F.l1_loss(self.G_ba(fake_b), real_a) + F.l1_loss(self.G_ab(fake_a), real_b)
        adv_ab = self.D_b(fake_b)
        adv_ba = self.D_a(fake_a)
        g_ab_loss = F.mse_loss(adv_ab, torch.ones_like(adv_ab)) + self.cycle_weight * cycle
        g_ba_loss = F.mse_loss(adv_ba, torch.ones_like(adv_ba)) + self.cycle_weight * cycle

        self.opt_g.zero_grad()
        g_ab_loss.backward(retain_graph=True)
        g_ba_loss.backward(retain_graph=True)  # TLK201
        self.opt_g.step()

        self.opt_d.zero_grad()
        real_score_a, fake_score_a = self.D_a(real_a), self.D_a(fake_a.detach())
        d_a_loss = 0.5 * (F.mse_loss(real_score_a, torch.ones_like(real_score_a)) + F.mse_loss(fake_score_a, torch.zeros_like(fake_score_a)))
        d_a_loss.backward(retain_graph=True)  # TLK201
        real_score_b, fake_score_b = self.D_b(real_b), self.D_b(fake_b.detach())
        d_b_loss = 0.5 * (F.mse_loss(real_score_b, torch.ones_like(real_score_b)) + F.mse_loss(fake_score_b, torch.zeros_like(fake_score_b)))
        d_b_loss.backward(retain_graph=True)  # TLK201
        self.opt_d.step()
        return {"G": g_ab_loss.item() + g_ba_loss.item(), "D": d_a_loss.item() + d_b_loss.item()}

    def fit(self, loader, epochs=1):
        for epoch in range(epochs):
            for real_a, real_b in loader:
                self.train_step(real_a, real_b)
