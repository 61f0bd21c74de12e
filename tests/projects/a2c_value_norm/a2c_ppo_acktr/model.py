# Layout modelled on ikostrikov/pytorch-a2c-ppo-acktr-gail (a2c_ppo_acktr/model.py): the policy is an
# nn.Module with act / get_value / evaluate_actions, used by main.py and by the algorithm module.
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden_size=64):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(obs_dim, hidden_size), nn.Tanh(), nn.Linear(hidden_size, hidden_size), nn.Tanh())
        self.critic = nn.Linear(hidden_size, 1)
        self.actor = nn.Linear(hidden_size, num_actions)

    def forward(self, inputs):
        features = self.base(inputs)
        return self.critic(features), Categorical(logits=self.actor(features))

    def act(self, inputs, deterministic=False):
        value, dist = self(inputs)
        action = dist.probs.argmax(-1) if deterministic else dist.sample()
        return value, action.unsqueeze(-1), dist.log_prob(action).unsqueeze(-1)

    def get_value(self, inputs):
        value, _ = self(inputs)
        return value

    def evaluate_actions(self, inputs, action):
        value, dist = self(inputs)
        return value, dist.log_prob(action.squeeze(-1)).unsqueeze(-1), dist.entropy().mean()
