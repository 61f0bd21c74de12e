# Source: https://github.com/tier4/Diffusion-Planner/pull/372
# Shape: Fixed twin (the PR): each batch record is converted to Python floats before it is appended, so epoch_loss keeps numbers; the logged-only ADE tensor and the backwarded total die with the iteration. The EMA update runs under no_grad.
# Verdict: clean
"""Diffusion-Planner style epoch loop: agent/lane encoder + denoising decoder trained with a
dict of losses, per-batch records reduced once per epoch, timm-style model EMA."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Args:
    device = "cpu"
    future_len = 8
    predicted_neighbor_num = 4
    agent_dim = 6
    lane_dim = 4
    hidden_dim = 64
    batch_size = 8
    alpha_planning_loss = 1.0
    diffusion_steps = 20


class Encoder(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.agent_mlp = nn.Sequential(nn.Linear(args.agent_dim, args.hidden_dim), nn.GELU())
        self.lane_mlp = nn.Sequential(nn.Linear(args.lane_dim, args.hidden_dim), nn.GELU())
        self.fuse = nn.Linear(args.hidden_dim, args.hidden_dim)

    def forward(self, inputs):
        agents = self.agent_mlp(inputs["neighbor_agents_past"])      # B, N, H
        lanes = self.lane_mlp(inputs["lanes"]).mean(1, keepdim=True)  # B, 1, H
        return torch.tanh(self.fuse(agents + lanes))


class Decoder(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.time_embed = nn.Embedding(args.diffusion_steps, args.hidden_dim)
        self.denoiser = nn.Sequential(
            nn.Linear(args.future_len * 2 + args.hidden_dim, args.hidden_dim), nn.GELU(),
            nn.Linear(args.hidden_dim, args.future_len * 2))

    def forward(self, encoding, noised_traj, t):
        h = encoding + self.time_embed(t)[:, None, :]
        x = torch.cat([noised_traj.flatten(2), h], dim=-1)
        return self.denoiser(x).view_as(noised_traj)


class Diffusion_Planner(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = Encoder(args)
        self.decoder = Decoder(args)


class ModelEma(nn.Module):
    """timm.utils.ModelEma-like helper."""

    def __init__(self, model, decay=0.999):
        super().__init__()
        self.ema = copy.deepcopy(model)
        self.ema.eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.ema.state_dict().values(), model.state_dict().values()):
            ema_v.copy_(ema_v * self.decay + (1.0 - self.decay) * model_v)


def diffusion_loss_func(model, inputs, args):
    future = inputs["neighbor_agents_future"]                 # B, N, T, 2 (ego is agent 0)
    B = future.shape[0]
    t = torch.randint(0, args.diffusion_steps, (B,))
    alpha = 1.0 - (t.float() + 1) / (args.diffusion_steps + 1)
    noise = torch.randn_like(future)
    noised = alpha.sqrt()[:, None, None, None] * future + (1 - alpha).sqrt()[:, None, None, None] * noise

    encoding = model.encoder(inputs)
    x0_pred = model.decoder(encoding, noised, t)

    loss = {}
    loss["neighbor_prediction_loss"] = F.mse_loss(x0_pred[:, 1:], future[:, 1:])
    loss["ego_planning_loss"] = F.mse_loss(x0_pred[:, 0], future[:, 0])
    # logged only: ego average displacement error of the denoised plan
    loss["ego_ade"] = torch.norm(x0_pred[:, 0] - future[:, 0], dim=-1).mean()
    return loss, x0_pred


def get_epoch_mean_loss(epoch_loss):
    epoch_mean_loss = {}
    for current_loss in epoch_loss:
        for key, value in current_loss.items():
            value = value if isinstance(value, float) else value.item()
            epoch_mean_loss.setdefault(key, []).append(value)
    return {key: float(np.mean(values)) for key, values in epoch_mean_loss.items()}


def train_epoch(data_loader, model, optimizer, args, model_ema=None):
    epoch_loss = []
    model.train()
    for batch in data_loader:
        inputs = {k: v.to(args.device) for k, v in batch.items()}
        loss, _ = diffusion_loss_func(model, inputs, args)
        loss["loss"] = loss["neighbor_prediction_loss"] + args.alpha_planning_loss * loss["ego_planning_loss"]

        optimizer.zero_grad()
        loss["loss"].backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5)
        optimizer.step()
        if model_ema is not None:
            model_ema.update(model)

        epoch_loss.append({k: v.item() for k, v in loss.items()})
    epoch_mean_loss = get_epoch_mean_loss(epoch_loss)
    return epoch_mean_loss, epoch_loss


def make_batches(n_batches, args=Args, seed=0):
    gen = torch.Generator().manual_seed(seed)
    B, N, T = args.batch_size, args.predicted_neighbor_num, args.future_len
    return [{
        "neighbor_agents_past": torch.randn(B, N, args.agent_dim, generator=gen),
        "lanes": torch.randn(B, 12, args.lane_dim, generator=gen),
        "neighbor_agents_future": torch.randn(B, N, T, 2, generator=gen).cumsum(2) * 0.1,
    } for _ in range(n_batches)]


def run(steps):
    torch.manual_seed(0)
    args = Args()
    model = Diffusion_Planner(args)
    model_ema = ModelEma(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    # one epoch of `steps` batches: the per-batch records live until the epoch ends
    epoch_mean_loss, epoch_loss = train_epoch(make_batches(steps), model, optimizer, args, model_ema)
    return model, epoch_mean_loss, epoch_loss


if __name__ == "__main__":
    run(10)
