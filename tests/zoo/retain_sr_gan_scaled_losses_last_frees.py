# Source: https://github.com/neosr-project/neosr/pull/31
# Shape: the super-resolution GAN's generator step backwards each loss of its list through the GradScaler and retains the shared generator graph for every loss but the last one (retain_graph=i < len(g_losses) - 1), so the last backward frees the graph before the discriminator step and the next forward.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySRNet(nn.Module):
    def __init__(self, ch=16, scale=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, 3 * scale * scale, 3, padding=1))
        self.up = nn.PixelShuffle(scale)

    def forward(self, lq):
        return self.up(self.body(lq))


class PatchDiscriminator(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ch, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(ch, 1, 4, 2, 1))

    def forward(self, img):
        return self.net(img)


class SRGANModel:
    def __init__(self, device="cpu", use_amp=True, percep_weight=0.1, gan_weight=0.01):
        self.net_g, self.net_d = TinySRNet(), PatchDiscriminator()
        self.feat = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()).requires_grad_(False)
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=1e-4)
        self.optimizer_d = torch.optim.Adam(self.net_d.parameters(), lr=1e-4)
        self.device, self.use_amp, self.amp_dtype = device, use_amp, torch.bfloat16
        self.gradscaler_g = torch.amp.GradScaler(device, enabled=use_amp)
        self.gradscaler_d = torch.amp.GradScaler(device, enabled=use_amp)
        self.percep_weight, self.gan_weight = percep_weight, gan_weight

    def optimize_parameters(self, lq, gt):
        for p in self.net_d.parameters():
            p.requires_grad = False
        self.optimizer_g.zero_grad()
        with torch.autocast(self.device, dtype=self.amp_dtype, enabled=self.use_amp):
            output = self.net_g(lq)
            g_losses = [F.l1_loss(output, gt)]
            g_losses.append(self.percep_weight * F.mse_loss(self.feat(output), self.feat(gt)))
            fake_g_pred = self.net_d(output)
            g_losses.append(self.gan_weight * F.softplus(-fake_g_pred).mean())
        for i, l_g in enumerate(g_losses):
            self.gradscaler_g.scale(l_g).backward(retain_graph=i < len(g_losses) - 1)
        self.gradscaler_g.step(self.optimizer_g)
        self.gradscaler_g.update()

        for p in self.net_d.parameters():
            p.requires_grad = True
        self.optimizer_d.zero_grad()
        with torch.autocast(self.device, dtype=self.amp_dtype, enabled=self.use_amp):
            l_d = F.softplus(-self.net_d(gt)).mean() + F.softplus(self.net_d(output.detach())).mean()
        self.gradscaler_d.scale(l_d).backward()
        self.gradscaler_d.step(self.optimizer_d)
        self.gradscaler_d.update()
        return {name: l.item() for name, l in zip(("l_pix", "l_percep", "l_g_gan"), g_losses)}


def train(model, loader):
    return [model.optimize_parameters(lq, gt) for lq, gt in loader]
