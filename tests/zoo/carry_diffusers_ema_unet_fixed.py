# Source: https://github.com/fadel/pytorch_ema/issues/1
# Shape: the fix reads the live parameter through param.detach() in the in-place shadow update, so the EMA copies never record autograd history.
# Verdict: clean
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class DDPMScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=1e-4, beta_end=2e-2):
        self.num_train_timesteps = num_train_timesteps
        betas = torch.linspace(beta_start, beta_end, num_train_timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)

    def add_noise(self, original_samples, noise, timesteps):
        sqrt_alpha_prod = self.alphas_cumprod[timesteps].sqrt().view(-1, 1)
        sqrt_one_minus_alpha_prod = (1 - self.alphas_cumprod[timesteps]).sqrt().view(-1, 1)
        return sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise


def timestep_embedding(timesteps, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, dim, temb_dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim)
        self.temb_proj = nn.Linear(temb_dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc2 = nn.Linear(dim, dim)

    def forward(self, x, temb):
        h = self.fc1(F.silu(self.norm1(x))) + self.temb_proj(F.silu(temb))
        return x + self.fc2(F.silu(self.norm2(h)))


class TinyDenoiser(nn.Module):
    def __init__(self, sample_dim=32, dim=64, temb_dim=64, n_blocks=4):
        super().__init__()
        self.temb_dim = temb_dim
        self.time_mlp = nn.Sequential(nn.Linear(temb_dim, temb_dim), nn.SiLU(), nn.Linear(temb_dim, temb_dim))
        self.conv_in = nn.Linear(sample_dim, dim)
        self.blocks = nn.ModuleList([ResBlock(dim, temb_dim) for _ in range(n_blocks)])
        self.conv_out = nn.Linear(dim, sample_dim)

    def forward(self, sample, timesteps):
        temb = self.time_mlp(timestep_embedding(timesteps, self.temb_dim))
        h = self.conv_in(sample)
        for block in self.blocks:
            h = block(h, temb)
        return self.conv_out(h)


class EMAModel:
    def __init__(self, parameters, decay=0.9999, min_decay=0.0, update_after_step=0, use_ema_warmup=True, inv_gamma=1.0, power=2 / 3):
        parameters = list(parameters)
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.decay = decay
        self.min_decay = min_decay
        self.update_after_step = update_after_step
        self.use_ema_warmup = use_ema_warmup
        self.inv_gamma = inv_gamma
        self.power = power
        self.optimization_step = 0

    def get_decay(self, optimization_step):
        step = max(0, optimization_step - self.update_after_step - 1)
        if step <= 0:
            return 0.0
        if self.use_ema_warmup:
            cur_decay_value = 1 - (1 + step / self.inv_gamma) ** -self.power
        else:
            cur_decay_value = (1 + step) / (10 + step)
        cur_decay_value = min(cur_decay_value, self.decay)
        return max(cur_decay_value, self.min_decay)

    def step(self, parameters):
        parameters = list(parameters)
        self.optimization_step += 1
        decay = self.get_decay(self.optimization_step)
        one_minus_decay = 1 - decay
        for s_param, param in zip(self.shadow_params, parameters):
            if param.requires_grad:
                s_param.sub_(one_minus_decay * (s_param - param.detach()))
            else:
                s_param.copy_(param)

    def copy_to(self, parameters):
        for s_param, param in zip(self.shadow_params, parameters):
            param.data.copy_(s_param.to(param.device).data)


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(16, 32, generator=g) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    unet = TinyDenoiser()
    noise_scheduler = DDPMScheduler()
    ema_unet = EMAModel(unet.parameters(), decay=0.999)
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    train_loss = 0.0
    for step, latents in enumerate(batches):
        noise = torch.randn_like(latents)
        timesteps = torch.randint(0, noise_scheduler.num_train_timesteps, (latents.shape[0],))
        noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
        model_pred = unet(noisy_latents, timesteps)
        loss = F.mse_loss(model_pred.float(), noise.float(), reduction="mean")
        loss.backward()
        torch.nn.utils.clip_grad_norm_(unet.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        ema_unet.step(unet.parameters())
        train_loss += loss.item()
    return train_loss / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
