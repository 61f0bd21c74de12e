# Source: https://github.com/caogang/wgan-gp/blob/02ec5e25d1bbb6af173ddb0808e0271ec510bd84/gan_mnist.py
# Shape: WGAN-GP critic step: a helper returns the gradient penalty built with create_graph=True, the caller adds it to the critic loss and backwards it in the same iteration; only floats are logged (measured: 0 B/iter)
# Verdict: clean
import torch
from torch import autograd


def gradient_penalty(critic, real, fake, lam=10.0):
    alpha = torch.rand(real.size(0), 1).expand_as(real)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    grads = autograd.grad(outputs=scores, inputs=interpolates,
                          grad_outputs=torch.ones_like(scores),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean() * lam


w_dist_log = []
for iteration in range(200_000):
    for _ in range(5):
        real = next(data_iter)
        with torch.no_grad():
            fake = netG(torch.randn(real.size(0), 128))
        netD.zero_grad()
        d_real = netD(real).mean()
        d_fake = netD(fake).mean()
        gp = gradient_penalty(netD, real, fake)
        d_cost = d_fake - d_real + gp
        d_cost.backward()
        optimizerD.step()
    w_dist_log.append((d_real - d_fake).item())
