# Source: https://github.com/ray-project/ray/pull/62755
# Shape: the CQL learner with the retention decided per component: only the Q-function backward retains the graph, because the policy backward that follows goes back through the shared policy forward (the sampled actions feed both losses); the policy and alpha backwards free it, and the Lagrangian loss, which only flows through log_cql_alpha, needs no retained graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * act_dim))

    def forward(self, obs):
        mean, log_std = self.net(obs).chunk(2, dim=-1)
        std = log_std.clamp(-5, 2).exp()
        eps = torch.randn_like(mean)
        pre = mean + std * eps
        action = torch.tanh(pre)
        logp = (-0.5 * eps.pow(2) - log_std.clamp(-5, 2)).sum(-1) - torch.log(1 - action.pow(2) + 1e-6).sum(-1)
        return action, logp


class QFunction(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], dim=-1)).squeeze(-1)


class CQLTorchLearner:
    def __init__(self, obs_dim, act_dim, lagrangian=True, target_action_gap=1.0, lr=3e-4):
        self.pi, self.qf = GaussianPolicy(obs_dim, act_dim), QFunction(obs_dim, act_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.log_cql_alpha = torch.zeros(1, requires_grad=True)
        self.lagrangian, self.target_action_gap = lagrangian, target_action_gap
        self.target_entropy = -float(act_dim)
        self.optimizers = {
            "qf": torch.optim.Adam(self.qf.parameters(), lr=lr),
            "policy": torch.optim.Adam(self.pi.parameters(), lr=lr),
            "alpha": torch.optim.Adam([self.log_alpha], lr=lr),
        }
        self.cql_alpha_optim = torch.optim.Adam([self.log_cql_alpha], lr=lr)

    def compute_losses(self, batch):
        losses = {}
        obs, act, rew, next_obs, done = batch
        alpha = self.log_alpha.exp()
        pi_act, logp = self.pi(obs)
        q_pi = self.qf(obs, pi_act)
        q_data = self.qf(obs, act)
        with torch.no_grad():
            next_act, next_logp = self.pi(next_obs)
            target = rew + 0.99 * (1 - done) * (self.qf(next_obs, next_act) - alpha * next_logp)
        bellman = F.mse_loss(q_data, target)
        cql_gap = torch.logsumexp(torch.stack([q_pi, q_data], dim=0), dim=0).mean() - q_data.mean()
        cql_alpha = self.log_cql_alpha.exp().clamp(0.0, 1e6)
        losses["qf_loss"] = bellman + cql_alpha.detach() * (cql_gap - self.target_action_gap)
        losses["policy_loss"] = (alpha.detach() * logp - q_pi).mean()
        losses["alpha_loss"] = -(self.log_alpha * (logp.detach() + self.target_entropy)).mean()
        losses["lagrangian_loss"] = -cql_alpha * (cql_gap.detach() - self.target_action_gap)
        return losses

    def compute_gradients(self, losses):
        for optim_name, optim in self.optimizers.items():
            optim.zero_grad(set_to_none=True)
            loss_tensor = losses[optim_name + "_loss"]
            retain = optim_name not in ["policy", "alpha"]
            loss_tensor.backward(retain_graph=retain)

    def apply_gradients(self, losses):
        for optim in self.optimizers.values():
            optim.step()
        if self.lagrangian:
            self.cql_alpha_optim.zero_grad(set_to_none=True)
            losses["lagrangian_loss"].backward()
            self.cql_alpha_optim.step()

    def update(self, batch):
        losses = self.compute_losses(batch)
        self.compute_gradients(losses)
        self.apply_gradients(losses)
        return {name: loss.item() for name, loss in losses.items()}


def train(learner, replay_batches):
    metrics = []
    for batch in replay_batches:
        metrics.append(learner.update(batch))
    return metrics
