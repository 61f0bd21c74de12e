# Source: https://github.com/khaledkah/MoreRed/pull/25
# Shape: a DDPM-style sampler class denoises positions by looping t = T..1, calling the noise-prediction network on the current state and feeding the updated state into the next step, without torch.no_grad(); each step's network graph is chained to the previous state so the whole reverse trajectory's graph is held until sampling ends (the PR removed gradient computation during sampling). The recorded trajectory keeps detached copies only.
# Verdict: leak
import torch
import torch.nn as nn

STEPS = 200


class NoisePredictor(nn.Module):
    def __init__(self, dim=3, hidden=128):
        super().__init__()
        self.time_embed = nn.Linear(1, hidden)
        self.net = nn.Sequential(nn.Linear(dim + hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        emb = self.time_embed(t.expand(x.size(0), 1))
        return self.net(torch.cat([x, emb], dim=-1))


class DDPMSampler:
    def __init__(self, model, num_steps):
        self.model = model
        self.num_steps = num_steps
        self.betas = torch.linspace(1e-4, 0.02, num_steps)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)

    def reverse_step(self, x, eps, t):
        alpha, alpha_bar, beta = self.alphas[t], self.alpha_bars[t], self.betas[t]
        mean = (x - beta / (1 - alpha_bar).sqrt() * eps) / alpha.sqrt()
        if t == 0:
            return mean
        return mean + beta.sqrt() * torch.randn_like(x)

    def denoise(self, x_T, record_every=50):
        x = x_T
        trajectory = [x_T.clone()]
        for t in reversed(range(self.num_steps)):
            t_in = torch.full((1, 1), t / self.num_steps)
            eps = self.model(x, t_in)
            x = self.reverse_step(x, eps, t)  # TLK103
            if t % record_every == 0:
                trajectory.append(x.detach().clone())
        return x, trajectory


model = NoisePredictor()
model.eval()
sampler = DDPMSampler(model, num_steps=STEPS)
positions, traj = sampler.denoise(torch.randn(64, 3))
print(positions.shape, len(traj))
