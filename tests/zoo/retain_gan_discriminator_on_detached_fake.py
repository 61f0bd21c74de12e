# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/96
# Shape: GAN step whose discriminator sees fake.detach(), yet its backward still passes retain_graph=True; the generator loss runs a fresh discriminator forward on fake, so no later backward uses the retained discriminator graph (a peak, no growth: measured 0 B/iter)
# Verdict: leak
import torch
import torch.nn as nn

bce = nn.BCEWithLogitsLoss()
for step, real in enumerate(loader):
    z = torch.randn(real.size(0), 100)
    fake = G(z)

    d_real = D(real)
    d_fake = D(fake.detach())
    d_loss = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    opt_D.zero_grad()
    d_loss.backward(retain_graph=True)  # TLK201
    opt_D.step()

    g_out = D(fake)
    g_loss = bce(g_out, torch.ones_like(g_out))
    opt_G.zero_grad()
    g_loss.backward()
    opt_G.step()
