# Source: https://github.com/huggingface/trl/issues/130
# Shape: a PPO trainer built on accelerate collects its experience by running the policy and the critic outside no_grad and stores the attached log-probabilities and values in the rollout buffer; the buffer keeps one policy graph per collected step, and the PPO minibatch loss that reuses the stored log-prob reaches a graph whose weights the optimizer has already changed (the error of the report at accelerator.backward).
# Verdict: leak
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=16, n_actions=6, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


class PPOTrainer:
    def __init__(self, net, lr=3e-4, ppo_epochs=4, clip=0.2):
        self.accelerator = Accelerator()
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.net, self.opt = self.accelerator.prepare(net, self.opt)
        self.ppo_epochs = ppo_epochs
        self.clip = clip
        self.buffer = []

    def make_experience(self, env, num_rollouts):
        self.buffer = []
        obs = env.reset()
        for _ in range(num_rollouts):
            logits, value = self.net(obs)
            dist = Categorical(logits=logits)
            action = dist.sample()
            logprob = dist.log_prob(action)
            next_obs, reward = env.step(action)
            self.buffer.append({"obs": obs, "action": action, "logprob": logprob, "value": value, "reward": reward})  # TLK102
            obs = next_obs

    def train_minibatch(self, mb):
        logits, value = self.net(mb["obs"])
        new_logprob = Categorical(logits=logits).log_prob(mb["action"])
        advantage = mb["reward"] - mb["value"]
        ratio = torch.exp(new_logprob - mb["logprob"])
        clipped = torch.clamp(ratio, 1 - self.clip, 1 + self.clip)
        pg_loss = -torch.min(ratio * advantage, clipped * advantage).mean()
        vf_loss = (value - mb["reward"]).pow(2).mean()
        loss = pg_loss + 0.5 * vf_loss
        self.opt.zero_grad()
        self.accelerator.backward(loss)
        self.opt.step()
        return loss.item()

    def step(self, env, num_rollouts=32):
        self.make_experience(env, num_rollouts)
        stats = []
        for _ in range(self.ppo_epochs):
            for mb in self.buffer:
                stats.append(self.train_minibatch(mb))
        return sum(stats) / len(stats)
