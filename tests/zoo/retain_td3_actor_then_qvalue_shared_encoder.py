# Source: https://github.com/pytorch/rl/issues/1187
# Shape: a TD3 loss module returns a dict with the actor loss and the Q-value loss, both computed from one shared observation encoder forward; the training loop steps separate actor and critic optimizers, backwarding the actor loss with retain_graph=True because the Q-value backward that follows goes through the same encoder graph, and the Q-value backward, the last one, frees it.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TD3Loss(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=256, gamma=0.99, policy_noise=0.2, noise_clip=0.5):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU())
        self.actor = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, act_dim), nn.Tanh())
        self.q1 = nn.Sequential(nn.Linear(hidden + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.q2 = nn.Sequential(nn.Linear(hidden + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.gamma, self.policy_noise, self.noise_clip = gamma, policy_noise, noise_clip

    def forward(self, td):
        feat = self.encoder(td["observation"])
        pi = self.actor(feat)
        loss_actor = -self.q1(torch.cat([feat, pi], -1)).mean()
        with torch.no_grad():
            next_feat = self.encoder(td["next_observation"])
            noise = (torch.randn_like(pi) * self.policy_noise).clamp(-self.noise_clip, self.noise_clip)
            next_a = (self.actor(next_feat) + noise).clamp(-1, 1)
            next_q = torch.min(self.q1(torch.cat([next_feat, next_a], -1)), self.q2(torch.cat([next_feat, next_a], -1)))
            target = td["reward"] + self.gamma * (1 - td["done"]) * next_q.squeeze(-1)
        sa = torch.cat([feat, td["action"]], -1)
        loss_qvalue = F.mse_loss(self.q1(sa).squeeze(-1), target) + F.mse_loss(self.q2(sa).squeeze(-1), target)
        return {"loss_actor": loss_actor, "loss_qvalue": loss_qvalue}


def train(loss_module, replay_samples, lr=3e-4, policy_delay=2):
    actor_params = list(loss_module.actor.parameters())
    critic_params = list(loss_module.encoder.parameters()) + list(loss_module.q1.parameters()) + list(loss_module.q2.parameters())
    optim_actor = torch.optim.Adam(actor_params, lr=lr)
    optim_critic = torch.optim.Adam(critic_params, lr=lr)
    logs = []
    for i, td in enumerate(replay_samples):
        loss = loss_module(td)
        optim_actor.zero_grad()
        optim_critic.zero_grad()
        loss["loss_actor"].backward(retain_graph=True)
        for p in critic_params:
            p.grad = None
        loss["loss_qvalue"].backward()
        if i % policy_delay == 0:
            optim_actor.step()
        optim_critic.step()
        logs.append({k: v.item() for k, v in loss.items()})
    return logs
