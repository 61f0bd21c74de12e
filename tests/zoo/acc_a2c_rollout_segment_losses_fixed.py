# Source: https://github.com/google/brax/pull/152
# Shape: the actor-critic loop adds each update's policy+value loss into an episode-level total as a Python float, so no rollout graph is kept.
# Verdict: clean
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ToyEnv:
    """4-dim state, 3 discrete actions, linear dynamics and a quadratic reward."""

    def __init__(self, start):
        self.s = start.clone()
        self.A = torch.tensor([[0.9, 0.1, 0.0, 0.0], [0.0, 0.9, 0.1, 0.0],
                               [0.0, 0.0, 0.9, 0.1], [0.1, 0.0, 0.0, 0.9]])
        self.B = torch.tensor([[0.1, -0.1, 0.0], [0.0, 0.1, -0.1],
                               [-0.1, 0.0, 0.1], [0.05, 0.05, 0.05]])

    def step(self, a):
        self.s = self.s @ self.A.t() + self.B.t()[a]
        return self.s.clone(), -(self.s ** 2).sum(-1)


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.pi = nn.Linear(16, 3)
        self.v = nn.Linear(16, 1)

    def forward(self, s):
        z = self.body(s)
        return Categorical(logits=self.pi(z)), self.v(z).squeeze(-1)


def rollout(net, env, obs, horizon=5):
    logps, values, rewards, ents = [], [], [], []
    for _ in range(horizon):
        dist, v = net(obs)
        a = dist.sample()
        obs, r = env.step(a)
        logps.append(dist.log_prob(a))
        values.append(v)
        rewards.append(r)
        ents.append(dist.entropy())
    return torch.stack(logps), torch.stack(values), torch.stack(rewards), torch.stack(ents), obs


def discounted(rewards, bootstrap, gamma=0.95):
    out, running = [], bootstrap
    for r in reversed(list(rewards)):
        running = r + gamma * running
        out.append(running)
    return torch.stack(out[::-1])


def make_batches(n):
    g = torch.Generator().manual_seed(4)
    return [torch.randn(8, 4, generator=g) for _ in range(n)]


def run(batches):
    net = ActorCritic()
    opt = torch.optim.RMSprop(net.parameters(), lr=7e-4)
    total_loss = 0.0
    for start in batches:
        env = ToyEnv(start)
        obs = start
        policy_loss, value_loss = 0.0, 0.0
        for _segment in range(2):
            logp, values, rewards, ent, obs = rollout(net, env, obs)
            with torch.no_grad():
                _, boot = net(obs)
            returns = discounted(rewards, boot)
            adv = returns - values
            policy_loss = policy_loss + (-(logp * adv.detach()).mean() - 0.01 * ent.mean())
            value_loss = value_loss + adv.pow(2).mean()
        opt.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()
        total_loss += float(policy_loss + value_loss)
    return float(total_loss) / max(1, len(batches))


if __name__ == "__main__":
    print(run(make_batches(5)))
