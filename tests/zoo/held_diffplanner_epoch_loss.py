# Source: https://github.com/tier4/Diffusion-Planner/pull/372
# Shape: train_epoch appends each batch's loss dict (attached tensors, including the ADE/FDE metrics that are never backwarded) to epoch_loss, so every batch's graph lives until the epoch ends.
# Verdict: leak
import argparse
import copy

import torch
import torch.nn as nn


def make_batches(n, batch_size=8, n_neighbors=4, hist=10, fut=16, dim=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        batches.append({
            "ego_past": torch.randn(batch_size, hist, dim, generator=g),
            "neighbor_past": torch.randn(batch_size, n_neighbors, hist, dim, generator=g),
            "ego_future": torch.randn(batch_size, fut, 2, generator=g),
            "neighbor_future": torch.randn(batch_size, n_neighbors, fut, 2, generator=g),
        })
    return batches


def get_args(**overrides):
    args = argparse.Namespace(
        hidden_dim=64, future_len=16, hist_len=10, state_dim=4, n_neighbors=4,
        lr=1e-3, alpha_planning_loss=1.0, ema_decay=0.999, grad_clip=5.0,
        diffusion_steps=10,
    )
    for k, v in overrides.items():
        setattr(args, k, v)
    return args


class Encoder(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.ego = nn.GRU(args.state_dim, args.hidden_dim, batch_first=True)
        self.nb = nn.Linear(args.hist_len * args.state_dim, args.hidden_dim)

    def forward(self, ego_past, neighbor_past):
        _, h = self.ego(ego_past)
        b, n, t, d = neighbor_past.shape
        nb = torch.relu(self.nb(neighbor_past.reshape(b, n, t * d)))
        return torch.cat([h[-1].unsqueeze(1), nb], dim=1)   # [B, 1+N, H]


class Decoder(nn.Module):
    """Predicts the noise added to all agents' future trajectories."""

    def __init__(self, args):
        super().__init__()
        self.t_emb = nn.Embedding(args.diffusion_steps, args.hidden_dim)
        self.net = nn.Sequential(
            nn.Linear(args.hidden_dim + args.future_len * 2, 128), nn.SiLU(),
            nn.Linear(128, args.future_len * 2))
        self.future_len = args.future_len

    def forward(self, enc, noisy, t):
        b, a, _, _ = noisy.shape
        h = enc + self.t_emb(t)[:, None, :]
        x = torch.cat([h, noisy.reshape(b, a, -1)], dim=-1)
        return self.net(x).reshape(b, a, self.future_len, 2)


class DiffusionPlanner(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = Encoder(args)
        self.decoder = Decoder(args)


class ModelEMA:
    def __init__(self, model, decay):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for e, m in zip(self.ema.state_dict().values(), model.state_dict().values()):
            if e.dtype.is_floating_point:
                e.mul_(self.decay).add_(m.detach(), alpha=1 - self.decay)


def diffusion_loss_func(model, inputs, args, loss):
    enc = model.encoder(inputs["ego_past"], inputs["neighbor_past"])
    gt = torch.cat([inputs["ego_future"][:, None], inputs["neighbor_future"]], dim=1)
    b = gt.shape[0]
    t = torch.randint(0, args.diffusion_steps, (b,))
    alpha = (1.0 - t.float() / args.diffusion_steps)[:, None, None, None]
    noise = torch.randn_like(gt)
    noisy = alpha.sqrt() * gt + (1 - alpha).sqrt() * noise
    pred_noise = model.decoder(enc, noisy, t)
    x0 = (noisy - (1 - alpha).sqrt() * pred_noise) / alpha.sqrt().clamp(min=1e-2)

    loss["ego_planning_loss"] = ((pred_noise[:, 0] - noise[:, 0]) ** 2).mean()
    loss["neighbor_prediction_loss"] = ((pred_noise[:, 1:] - noise[:, 1:]) ** 2).mean()
    # displacement metrics for logging only
    err = torch.linalg.norm(x0[:, 0] - gt[:, 0], dim=-1)
    loss["ego_ADE"] = err.mean()
    loss["ego_FDE"] = err[:, -1].mean()
    return loss, x0


def get_epoch_mean_loss(epoch_loss):
    keys = epoch_loss[0].keys()
    return {k: float(sum(float(d[k]) for d in epoch_loss) / len(epoch_loss)) for k in keys}


def train_epoch(data_loader, model, optimizer, args, ema):
    epoch_loss = []
    model.train()
    for batch in data_loader:
        inputs = {k: v for k, v in batch.items()}
        loss = {}
        loss, _ = diffusion_loss_func(model, inputs, args, loss)
        loss["loss"] = loss["neighbor_prediction_loss"] + args.alpha_planning_loss * loss["ego_planning_loss"]

        optimizer.zero_grad()
        loss["loss"].backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        ema.update(model)

        epoch_loss.append(loss)  # TLK102

    epoch_mean_loss = get_epoch_mean_loss(epoch_loss)
    return epoch_loss, epoch_mean_loss


def run(steps):
    torch.manual_seed(0)
    args = get_args()
    model = DiffusionPlanner(args)
    ema = ModelEMA(model, args.ema_decay)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loader = make_batches(steps)
    epoch_loss, mean_loss = train_epoch(loader, model, optimizer, args, ema)
    return {"model": model, "ema": ema.ema, "epoch_loss": epoch_loss, "mean": mean_loss}


if __name__ == "__main__":
    run(10)
