# Source: https://github.com/openai/consistency_models/blob/3d86141c2d04ec08de45c7e9a9a0cc19ba9bba34/cm/train_util.py
# Shape: the loss-aware schedule sampler keeps 0-d loss slices in per-timestep history deques, but forward_backward hands it losses["loss"].detach() (as upstream), so the history holds values only; EMA/target updates write through .detach() aliases or under no_grad.
# Verdict: clean
import copy
import functools
from abc import ABC, abstractmethod
from collections import deque

import numpy as np
import torch as th
import torch.nn as nn


# --------------------------------------------------------------------------- cm/nn.py
def update_ema(target_params, source_params, rate=0.99):
    """Update target parameters to be closer to those of source parameters using an EMA."""
    for targ, src in zip(target_params, source_params):
        targ.detach().mul_(rate).add_(src, alpha=1 - rate)


def append_dims(x, target_dims):
    return x[(...,) + (None,) * (target_dims - x.ndim)]


def mean_flat(tensor):
    return tensor.mean(dim=list(range(1, len(tensor.shape))))


# --------------------------------------------------------------------------- cm/resample.py
class ScheduleSampler(ABC):
    @abstractmethod
    def weights(self):
        """One positive weight per diffusion step."""

    def sample(self, batch_size, device):
        w = self.weights()
        p = w / np.sum(w)
        indices_np = np.random.choice(len(p), size=(batch_size,), p=p)
        indices = th.from_numpy(indices_np).long().to(device)
        weights_np = 1 / (len(p) * p[indices_np])
        weights = th.from_numpy(weights_np).float().to(device)
        return indices, weights


class LossAwareSampler(ScheduleSampler):
    def update_with_local_losses(self, local_ts, local_losses):
        """Single-process version: no all_gather, and no per-element .item() (avoids a sync per sample)."""
        self.update_with_all_losses(local_ts.tolist(), list(local_losses))

    @abstractmethod
    def update_with_all_losses(self, ts, losses):
        """ts: list of int timesteps, losses: one loss per timestep."""


class LossSecondMomentResampler(LossAwareSampler):
    def __init__(self, num_timesteps, history_per_term=10, uniform_prob=0.001):
        self.num_timesteps = num_timesteps
        self.history_per_term = history_per_term
        self.uniform_prob = uniform_prob
        self._loss_history = [deque(maxlen=history_per_term) for _ in range(num_timesteps)]

    def weights(self):
        if not self._warmed_up():
            return np.ones([self.num_timesteps], dtype=np.float64)
        hist = np.array([[float(x) for x in h] for h in self._loss_history], dtype=np.float64)
        weights = np.sqrt(np.mean(hist ** 2, axis=-1))
        weights /= np.sum(weights)
        weights *= 1 - self.uniform_prob
        weights += self.uniform_prob / len(weights)
        return weights

    def update_with_all_losses(self, ts, losses):
        for t, loss in zip(ts, losses):
            self._loss_history[t].append(loss)

    def _warmed_up(self):
        return all(len(h) == self.history_per_term for h in self._loss_history)


# --------------------------------------------------------------------------- cm/karras_diffusion.py (consistency training, tiny)
class KarrasDenoiser:
    def __init__(self, sigma_data=0.5, sigma_max=80.0, sigma_min=0.002, rho=7.0, num_scales=40):
        self.sigma_data = sigma_data
        self.sigma_max = sigma_max
        self.sigma_min = sigma_min
        self.rho = rho
        self.num_timesteps = num_scales

    def get_scalings_for_boundary_condition(self, sigma):
        c_skip = self.sigma_data ** 2 / ((sigma - self.sigma_min) ** 2 + self.sigma_data ** 2)
        c_out = (sigma - self.sigma_min) * self.sigma_data / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        c_in = 1 / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        return c_skip, c_out, c_in

    def denoise(self, model, x_t, sigmas):
        c_skip, c_out, c_in = [append_dims(x, x_t.ndim) for x in self.get_scalings_for_boundary_condition(sigmas)]
        rescaled_t = 1000 * 0.25 * th.log(sigmas + 1e-44)
        model_output = model(c_in * x_t, rescaled_t)
        return c_out * model_output + c_skip * x_t

    def _sigma(self, idx):
        rho = self.rho
        n = self.num_timesteps
        return (self.sigma_max ** (1 / rho) + idx / (n - 1) * (self.sigma_min ** (1 / rho) - self.sigma_max ** (1 / rho))) ** rho

    def consistency_losses(self, model, x_start, t_idx, target_model, noise=None):
        if noise is None:
            noise = th.randn_like(x_start)
        dims = x_start.ndim
        t = self._sigma(t_idx.float())
        t2 = self._sigma(t_idx.float() + 1)
        x_t = x_start + noise * append_dims(t, dims)
        x_t2 = x_start + noise * append_dims(t2, dims)
        distiller = self.denoise(model, x_t, t)
        with th.no_grad():
            distiller_target = self.denoise(target_model, x_t2, t2).detach()
        diffs = (distiller - distiller_target) ** 2
        loss = mean_flat(diffs)
        return {"loss": loss, "mse": loss.detach()}


class TinyUNet(nn.Module):
    def __init__(self, dim=16, hidden=64):
        super().__init__()
        self.t_embed = nn.Sequential(nn.Linear(1, hidden), nn.SiLU())
        self.inp = nn.Linear(dim, hidden)
        self.mid = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.out = nn.Linear(hidden, dim)

    def forward(self, x, t):
        h = self.inp(x) + self.t_embed(t[:, None] / 1000.0)
        return self.out(self.mid(h))


# --------------------------------------------------------------------------- cm/train_util.py
class Logger:
    def __init__(self):
        self.name2val = {}
        self.name2cnt = {}

    def logkv_mean(self, key, val):
        old, cnt = self.name2val.get(key, 0.0), self.name2cnt.get(key, 0)
        self.name2val[key] = old * cnt / (cnt + 1) + val / (cnt + 1)
        self.name2cnt[key] = cnt + 1

    def dumpkvs(self):
        out = dict(self.name2val)
        self.name2val.clear()
        self.name2cnt.clear()
        return out


def log_loss_dict(logger, diffusion, ts, losses):
    for key, values in losses.items():
        logger.logkv_mean(key, values.mean().item())


class CMTrainLoop:
    def __init__(self, *, model, target_model, diffusion, data, batch_size, microbatch, lr,
                 ema_rate, schedule_sampler, log_interval=100, target_ema=0.95):
        self.model = model
        self.target_model = target_model
        self.diffusion = diffusion
        self.data = data
        self.batch_size = batch_size
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.ema_rate = [ema_rate] if isinstance(ema_rate, float) else [float(x) for x in ema_rate.split(",")]
        self.schedule_sampler = schedule_sampler
        self.log_interval = log_interval
        self.target_ema = target_ema
        self.logger = Logger()
        self.master_params = list(self.model.parameters())
        self.opt = th.optim.RAdam(self.master_params, lr=lr)
        self.ema_params = [copy.deepcopy(self.master_params) for _ in range(len(self.ema_rate))]
        self.target_model.requires_grad_(False)
        self.target_model_master_params = list(self.target_model.parameters())
        self.step = 0
        self.logs = []

    def run_loop(self, total_steps):
        while self.step < total_steps:
            batch = next(self.data)
            self.run_step(batch)
            if self.step % self.log_interval == 0:
                self.logs.append(self.logger.dumpkvs())

    def run_step(self, batch):
        self.forward_backward(batch)
        self.opt.step()
        self._update_ema()
        self._update_target_ema()
        self.step += 1

    def forward_backward(self, batch):
        self.opt.zero_grad(set_to_none=True)
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i: i + self.microbatch]
            t, weights = self.schedule_sampler.sample(micro.shape[0], micro.device)
            compute_losses = functools.partial(
                self.diffusion.consistency_losses, self.model, micro, t, target_model=self.target_model)
            losses = compute_losses()

            if isinstance(self.schedule_sampler, LossAwareSampler):
                self.schedule_sampler.update_with_local_losses(t, losses["loss"].detach())

            loss = (losses["loss"] * weights).mean()
            log_loss_dict(self.logger, self.diffusion, t, {k: v * weights for k, v in losses.items()})
            loss.backward()

    def _update_ema(self):
        for rate, params in zip(self.ema_rate, self.ema_params):
            update_ema(params, self.master_params, rate=rate)

    def _update_target_ema(self):
        with th.no_grad():
            update_ema(self.target_model_master_params, self.master_params, rate=self.target_ema)


# --------------------------------------------------------------------------- data
def make_batches(batch_size=16, dim=16, seed=0):
    """Endless iterator of samples from a fixed 4-mode mixture (like load_data())."""
    g = th.Generator().manual_seed(seed)
    centers = th.randn(4, dim, generator=g)
    while True:
        idx = th.randint(0, 4, (batch_size,), generator=g)
        yield centers[idx] + 0.1 * th.randn(batch_size, dim, generator=g)


def run(steps):
    th.manual_seed(0)
    np.random.seed(0)
    diffusion = KarrasDenoiser(num_scales=40)
    model = TinyUNet()
    target_model = copy.deepcopy(model)
    loop = CMTrainLoop(model=model, target_model=target_model, diffusion=diffusion,
                       data=make_batches(), batch_size=16, microbatch=8, lr=1e-3,
                       ema_rate="0.999,0.9999", schedule_sampler=LossSecondMomentResampler(diffusion.num_timesteps - 1))
    loop.run_loop(steps)
    return loop


if __name__ == "__main__":
    run(10)
