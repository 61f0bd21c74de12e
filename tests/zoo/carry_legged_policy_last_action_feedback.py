# Source: https://github.com/Improbable-AI/walk-these-ways/issues/10
# Shape: a play script runs a legged-robot policy for thousands of control steps with autograd on; the policy's action is fed back as the last-action part of the next observation, so each step's action graph links to every earlier step and memory creeps up until torch.no_grad() is put around the step.
# Verdict: leak
import torch
import torch.nn as nn


class AdaptationPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, latent_dim=2):
        super().__init__()
        self.adaptation = nn.Sequential(nn.Linear(obs_dim + act_dim, 256), nn.ELU(), nn.Linear(256, latent_dim))
        self.body = nn.Sequential(nn.Linear(obs_dim + act_dim + latent_dim, 512), nn.ELU(), nn.Linear(512, act_dim))

    def forward(self, obs, last_action):
        full_obs = torch.cat((obs, last_action), dim=-1)
        latent = self.adaptation(full_obs)
        return self.body(torch.cat((full_obs, latent), dim=-1))


def play(env, policy, num_steps=10_000):
    policy.eval()
    obs = torch.as_tensor(env.reset(), dtype=torch.float32)
    last_action = torch.zeros(env.num_envs, env.num_actions)
    step = 0
    rewards = 0.0
    while step < num_steps:
        action = policy(obs, last_action)
        next_obs, reward, done, info = env.step(action.cpu().numpy())
        obs = torch.as_tensor(next_obs, dtype=torch.float32)
        last_action = action  # TLK103
        rewards += float(reward.mean())
        step += 1
    return rewards / num_steps
