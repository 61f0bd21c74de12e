# Source: https://github.com/rotinov/AGNES/pull/17
# Shape: a recurrent PPO-style agent steps its GRU policy during rollout collection without no_grad and carries the hidden state from step to step for the whole run.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim=6, n_act=3, hid=16):
        super().__init__()
        self.enc = nn.Linear(obs_dim, hid)
        self.gru = nn.GRUCell(hid, hid)
        self.pi = nn.Linear(hid, n_act)
        self.v = nn.Linear(hid, 1)
        self.hid = hid

    def forward(self, obs, h):
        h = self.gru(torch.tanh(self.enc(obs)), h)
        return self.pi(h), self.v(h).squeeze(-1), h


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(2, 6, generator=g), torch.randn(2, generator=g)) for _ in range(n)]


class Agent:
    def __init__(self):
        self.policy = RecurrentPolicy()
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=3e-4)
        self.h = torch.zeros(2, self.policy.hid)
        self.buffer = []

    def act(self, obs):
        logits, value, h = self.policy(obs, self.h)
        self.h = h.detach()
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        return action, dist.log_prob(action).detach(), value.detach()

    def update(self):
        obs = torch.stack([b[0] for b in self.buffer])
        acts = torch.stack([b[1] for b in self.buffer])
        old_lp = torch.stack([b[2] for b in self.buffer])
        rets = torch.stack([b[3] for b in self.buffer])
        h = torch.zeros(obs.size(1), self.policy.hid)
        lps, vals = [], []
        for t in range(obs.size(0)):
            logits, v, h = self.policy(obs[t], h)
            lps.append(torch.distributions.Categorical(logits=logits).log_prob(acts[t]))
            vals.append(v)
        lp, val = torch.stack(lps), torch.stack(vals)
        adv = rets - val.detach()
        ratio = (lp - old_lp).exp()
        pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        loss = pg + 0.5 * F.mse_loss(val, rets)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.buffer.clear()
        return loss.item()


def run(batches, horizon=4):
    agent = Agent()
    for obs, reward in batches:
        action, logp, value = agent.act(obs)
        agent.buffer.append((obs, action, logp, reward))
        if len(agent.buffer) == horizon:
            agent.update()


if __name__ == "__main__":
    run(make_batches())
