# Source: https://github.com/open-mmlab/mmcv/pull/326
# Shape: OptimizerHook.after_train_iter() logs the grad_norm returned by clip_grad_norm_ (computed from .grad, no graph) and the progress bar/log buffer only receive .item()/float() values, so nothing attached is kept across PPO updates.
# Verdict: clean
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

OBS_DIM = 16
N_ACTIONS = 4
N_ENVS = 32


class LogBuffer:
    def __init__(self):
        self.val_history = OrderedDict()
        self.n_history = OrderedDict()
        self.output = OrderedDict()

    def update(self, vars, count=1):
        for key, var in vars.items():
            if key not in self.val_history:
                self.val_history[key] = 0.0
                self.n_history[key] = 0
            self.val_history[key] += var * count
            self.n_history[key] += count

    def average(self):
        for key in self.val_history:
            self.output[key] = self.val_history[key] / max(self.n_history[key], 1)


class ProgressBar:
    """tqdm-like bar: keeps only the formatted postfix string."""

    def __init__(self, total):
        self.total, self.n, self.postfix = total, 0, ""

    def set_postfix(self, ordered_dict=None, **kwargs):
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def update(self, n=1):
        self.n += n


class OptimizerHook:
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip
        self.last_grad_norm = None

    def clip_grads(self, params):
        params = [p for p in params if p.requires_grad and p.grad is not None]
        if len(params) > 0:
            return nn.utils.clip_grad_norm_(params, **self.grad_clip)

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        if self.grad_clip is not None:
            grad_norm = self.clip_grads(runner.model.parameters())
            if grad_norm is not None:
                self.last_grad_norm = grad_norm
                runner.log_buffer.update({"grad_norm": float(grad_norm)}, runner.outputs["num_samples"])
        runner.optimizer.step()


class ActorCritic(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_DIM, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, N_ACTIONS)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


class PPORunner:
    def __init__(self, model, clip_eps=0.2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
        self.log_buffer = LogBuffer()
        self.hook = OptimizerHook(grad_clip=dict(max_norm=0.5, norm_type=2))
        self.clip_eps = clip_eps
        self.outputs = {}

    def collect(self, seed):
        g = torch.Generator().manual_seed(seed)
        obs = torch.randn(N_ENVS, OBS_DIM, generator=g)
        with torch.no_grad():
            logits, values = self.model(obs)
            dist = Categorical(logits=logits)
            actions = dist.sample()
            old_log_probs = dist.log_prob(actions)
        rewards = torch.randn(N_ENVS, generator=g)
        advantages = rewards - values
        return obs, actions, old_log_probs, rewards, advantages

    def train_step(self, seed):
        obs, actions, old_log_probs, returns, advantages = self.collect(seed)
        logits, values = self.model(obs)
        dist = Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        surr = torch.min(ratio * advantages, ratio.clamp(1 - self.clip_eps, 1 + self.clip_eps) * advantages)
        policy_loss = -surr.mean()
        value_loss = F.mse_loss(values, returns)
        loss = policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()
        log_vars = OrderedDict(policy_loss=policy_loss.item(), value_loss=value_loss.item(), loss=loss.item())
        self.outputs = dict(loss=loss, log_vars=log_vars, num_samples=N_ENVS)
        self.log_buffer.update(log_vars, N_ENVS)
        self.hook.after_train_iter(self)
        return log_vars


def make_batches(n):
    torch.manual_seed(0)
    return [300 + i for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    runner = PPORunner(ActorCritic())
    pbar = ProgressBar(total=len(batches))
    for seed in batches:
        log_vars = runner.train_step(seed)
        pbar.set_postfix(OrderedDict(loss=f"{log_vars['loss']:.4f}",
                                     grad_norm=f"{runner.log_buffer.val_history.get('grad_norm', 0.0):.3f}"))
        pbar.update()
    runner.log_buffer.average()
    return runner, pbar
