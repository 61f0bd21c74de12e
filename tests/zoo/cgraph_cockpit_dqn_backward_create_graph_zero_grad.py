# Source: https://github.com/f-dangel/cockpit/issues/30
# Shape: a DQN agent's learn() method calls loss.backward(create_graph=...) every third step so a curvature probe can run Hessian-vector power iteration on the parameters' .grad; the same method starts with self.optimizer.zero_grad() (set_to_none), so the parameter <-> grad reference cycle built by backward(create_graph=True) is broken at the next call and memory stays flat; the probe keeps only .item() values.
# Verdict: clean
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 80


class QNet(nn.Module):
    def __init__(self, obs_dim=8, n_actions=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, n_actions))

    def forward(self, obs):
        return self.body(obs)


class Agent:
    def __init__(self, gamma=0.99, batch_size=32, probe_every=3, power_iters=3):
        self.q_net, self.target_net = QNet(), QNet()
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=1e-3)
        self.replay = deque(maxlen=100)
        self.gamma, self.batch_size = gamma, batch_size
        self.probe_every, self.power_iters = probe_every, power_iters
        self.hess_max_ev = []

    def act(self, obs, eps=0.1):
        if random.random() < eps:
            return random.randrange(4)
        with torch.no_grad():
            return int(self.q_net(obs).argmax())

    def create_graph(self, step):
        return step % self.probe_every == 0

    def hessian_max_eigenvalue(self):
        params = [p for p in self.q_net.parameters()]
        grads = [p.grad for p in params]
        v = [torch.randn_like(p) for p in params]
        lam = torch.zeros(())
        for i in range(self.power_iters):
            norm = torch.sqrt(sum((vi ** 2).sum() for vi in v))
            v = [vi / norm for vi in v]
            hv = torch.autograd.grad(grads, params, grad_outputs=v, retain_graph=i < self.power_iters - 1)
            lam = sum((h * vi).sum() for h, vi in zip(hv, v))
            v = [h.detach() for h in hv]
        return lam.item()

    def learn(self, step):
        batch = random.sample(self.replay, self.batch_size)
        obs, actions, rewards, next_obs = (torch.stack(t) for t in zip(*batch))
        q = self.q_net(obs).gather(1, actions.view(-1, 1)).squeeze(1)
        with torch.no_grad():
            target = rewards + self.gamma * self.target_net(next_obs).max(1).values
        loss = F.mse_loss(q, target)
        self.optimizer.zero_grad()
        create_graph = self.create_graph(step)
        loss.backward(create_graph=create_graph)
        if create_graph:
            self.hess_max_ev.append(self.hessian_max_eigenvalue())
        self.optimizer.step()
        return loss.item()


agent = Agent()
obs = torch.randn(8)
for step in range(STEPS + 32):
    action = agent.act(obs)
    next_obs, reward = torch.randn(8), torch.tensor(random.random())
    agent.replay.append((obs, torch.tensor(action), reward, next_obs))
    obs = next_obs
    if len(agent.replay) >= agent.batch_size:
        agent.learn(step)
print(len(agent.hess_max_ev))
