# Source: https://github.com/billy-enrizky/openbrowser-ai/pull/64
# Shape: a Flow-GRPO trainer first samples G denoising trajectories per prompt and records, at every denoising step, a dict with the latent, the next latent and the step's log-probability; the sampling runs with grad enabled (so each latent also chains the previous steps' denoiser graphs) although phase 2 recomputes every log-probability under the current policy, so all G trajectories' denoiser graphs are held until the update.
# Verdict: leak
import math

import torch
import torch.nn as nn


class FlowPolicy(nn.Module):
    def __init__(self, dim=16, cond_dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + cond_dim + 1, 64), nn.SiLU(), nn.Linear(64, dim))
        self.log_sigma = nn.Parameter(torch.full((dim,), -1.0))

    def velocity(self, x, t, cond):
        return self.net(torch.cat([x, cond, t.expand(x.size(0), 1)], dim=-1))

    def step(self, x, t, dt, cond, next_x=None):
        mean = x + self.velocity(x, t, cond) * dt
        sigma = self.log_sigma.exp() * math.sqrt(dt)
        if next_x is None:
            next_x = mean + sigma * torch.randn_like(mean)
        log_prob = (-((next_x - mean) ** 2) / (2 * sigma**2) - sigma.log()).sum(-1)
        return next_x, log_prob


def reward_fn(x):
    return -x.pow(2).mean(-1)


class FlowGRPOTrainer:
    def __init__(self, policy, group_size=4, num_steps=8, clip=0.2):
        self.policy, self.group_size, self.num_steps, self.clip = policy, group_size, num_steps, clip
        self.optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-4)

    def sample_group(self, cond):
        trajectories = []
        for g in range(self.group_size):
            x = torch.randn(1, 16)
            steps = []
            for k in range(self.num_steps):
                t = torch.tensor([[k / self.num_steps]])
                prev_x = x
                x, log_prob = self.policy.step(prev_x, t, 1.0 / self.num_steps, cond)  # TLK103
                steps.append({"x": prev_x, "next_x": x, "t": t, "log_prob": log_prob})  # TLK102
            trajectories.append({"steps": steps, "reward": reward_fn(x).item()})
        return trajectories

    def train_step(self, cond):
        trajectories = self.sample_group(cond)
        rewards = torch.tensor([tr["reward"] for tr in trajectories])
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
        self.optimizer.zero_grad()
        for adv, tr in zip(advantages, trajectories):
            for s in tr["steps"]:
                _, new_log_prob = self.policy.step(s["x"].detach(), s["t"], 1.0 / self.num_steps, cond, next_x=s["next_x"].detach())
                ratio = (new_log_prob - s["log_prob"].detach()).exp()
                loss = -torch.min(ratio * adv, ratio.clamp(1 - self.clip, 1 + self.clip) * adv).mean()
                (loss / (len(trajectories) * self.num_steps)).backward()
        self.optimizer.step()
        return rewards.mean().item()


if __name__ == "__main__":
    trainer = FlowGRPOTrainer(FlowPolicy())
    for prompt in range(2):
        trainer.train_step(torch.randn(1, 8))
