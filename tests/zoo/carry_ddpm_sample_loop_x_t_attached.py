# Source: https://github.com/ChrisDud0257/SSL/issues/4
# Shape: a DDPM trainer periodically draws validation samples with an ancestral sampling loop that feeds x_t from each denoising step into the next, without torch.no_grad(), so every step's U-Net graph is chained onto the sample.
# Verdict: leak
import torch
import torch.nn.functional as F


def linear_beta_schedule(timesteps, start=1e-4, end=2e-2):
    return torch.linspace(start, end, timesteps)


class GaussianDiffusion:
    def __init__(self, model, timesteps=1000):
        self.model = model
        self.timesteps = timesteps
        self.betas = linear_beta_schedule(timesteps)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)

    def training_loss(self, x0):
        t = torch.randint(0, self.timesteps, (x0.size(0),))
        noise = torch.randn_like(x0)
        a = self.alphas_cumprod[t].view(-1, 1, 1, 1)
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
        return F.mse_loss(self.model(x_t, t), noise)

    def p_sample(self, x_t, t):
        tt = torch.full((x_t.size(0),), t, dtype=torch.long)
        eps = self.model(x_t, tt)
        beta, alpha, a_bar = self.betas[t], self.alphas[t], self.alphas_cumprod[t]
        mean = (x_t - beta / (1 - a_bar).sqrt() * eps) / alpha.sqrt()
        if t == 0:
            return mean
        return mean + beta.sqrt() * torch.randn_like(x_t)

    def sample(self, shape, steps=None):
        x_t = torch.randn(shape)
        for t in reversed(range(steps or self.timesteps)):
            x_t = self.p_sample(x_t, t)  # TLK103
        return x_t.clamp(-1, 1)


def train(diffusion, optimizer, loader, sample_every=500, sample_shape=(4, 1, 8, 8), sample_steps=None):
    previews = None
    for step, x0 in enumerate(loader):
        loss = diffusion.training_loss(x0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % sample_every == 0:
            previews = diffusion.sample(sample_shape, sample_steps)
    return previews
