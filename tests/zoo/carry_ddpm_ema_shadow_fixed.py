# Source: https://github.com/Tin-Hoang/humanfaces-diffusion-generation/blob/abf1de25e945e9a6a012e79f3ade8983db7f2a36/diffusion_models/utils/ema.py
# Shape: EMA.update writes decay*shadow + (1-decay)*param through .data, so the shadow weights are plain tensors with no autograd history.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMA:
    def __init__(self, model, decay=0.9999):
        self.decay = decay
        self.shadow = {}
        self.device = next(model.parameters()).device
        self.register(model)

    def register(self, model):
        for name, param in model.named_parameters():
            if param.requires_grad:
                self.shadow[name] = param.clone().detach().to(self.device)

    def update(self, model):
        for name, param in model.named_parameters():
            if param.requires_grad:
                assert name in self.shadow
                self.shadow[name].data = (
                    self.decay * self.shadow[name].data
                    + (1.0 - self.decay) * param.data.to(self.device)
                )

    def apply_shadow(self, model):
        for name, param in model.named_parameters():
            if param.requires_grad and name in self.shadow:
                param.data.copy_(self.shadow[name].data)

    def state_dict(self):
        return self.shadow


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch, temb_ch):
        super().__init__()
        self.norm1 = nn.GroupNorm(4, ch)
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.temb = nn.Linear(temb_ch, ch)
        self.norm2 = nn.GroupNorm(4, ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.temb(F.silu(temb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return x + h


class TinyUNet(nn.Module):
    def __init__(self, ch=16, temb_ch=32):
        super().__init__()
        self.temb_ch = temb_ch
        self.temb_mlp = nn.Sequential(nn.Linear(temb_ch, temb_ch), nn.SiLU(), nn.Linear(temb_ch, temb_ch))
        self.conv_in = nn.Conv2d(3, ch, 3, padding=1)
        self.down = ResBlock(ch, temb_ch)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = ResBlock(ch, temb_ch)
        self.upsample = nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1)
        self.up = ResBlock(ch, temb_ch)
        self.conv_out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, t):
        temb = self.temb_mlp(timestep_embedding(t, self.temb_ch))
        h = self.conv_in(x)
        h = self.down(h, temb)
        h = self.mid(self.downsample(h), temb)
        h = self.up(self.upsample(h), temb)
        return self.conv_out(h)


class GaussianDiffusion:
    def __init__(self, timesteps=100):
        self.timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.sqrt_ac = alphas_cumprod.sqrt()
        self.sqrt_1m_ac = (1.0 - alphas_cumprod).sqrt()

    def q_sample(self, x0, t, noise):
        return self.sqrt_ac[t][:, None, None, None] * x0 + self.sqrt_1m_ac[t][:, None, None, None] * noise

    def training_losses(self, model, x0, t):
        noise = torch.randn_like(x0)
        x_t = self.q_sample(x0, t, noise)
        return F.mse_loss(model(x_t, t), noise)


class FacesDataset:
    def __init__(self, size=128, res=16):
        g = torch.Generator().manual_seed(3)
        self.images = torch.rand(size, 3, res, res, generator=g) * 2 - 1


class DiffusionTrainer:
    def __init__(self, config):
        self.config = config
        self.model = TinyUNet()
        self.diffusion = GaussianDiffusion(config["timesteps"])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config["lr"])
        self.ema = EMA(self.model, decay=config["ema_decay"])
        self.dataset = FacesDataset()
        self.step = 0
        self.losses = []

    def train_step(self, start, batch_size=8):
        x0 = self.dataset.images[start:start + batch_size]
        t = torch.randint(0, self.diffusion.timesteps, (x0.shape[0],))
        loss = self.diffusion.training_losses(self.model, x0, t)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        if self.step >= self.config["ema_start"]:
            self.ema.update(self.model)
        self.step += 1
        return loss.item()

    def fit(self, batches):
        for start in batches:
            self.losses.append(self.train_step(start))
        return self.losses


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 128 - 8, (n,))]


def run(batches):
    torch.manual_seed(0)
    config = {"timesteps": 100, "lr": 2e-4, "ema_decay": 0.999, "ema_start": 0}
    trainer = DiffusionTrainer(config)
    trainer.fit(batches)
    return trainer.ema
