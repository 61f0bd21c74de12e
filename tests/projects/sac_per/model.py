# Modelled on model.py of pranz24/pytorch-soft-actor-critic: a twin Q network and a squashed
# Gaussian policy whose sample() returns (action, log_prob, mean) with the tanh correction.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

LOG_SIG_MAX = 2
LOG_SIG_MIN = -20
EPSILON = 1e-6


class QNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(num_inputs + num_actions, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1))
        self.q2 = nn.Sequential(nn.Linear(num_inputs + num_actions, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1))

    def forward(self, state, action):
        xu = torch.cat([state, action], 1)
        return self.q1(xu), self.q2(xu)


class GaussianPolicy(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(num_inputs, hidden_dim), nn.ReLU())
        self.mean_linear = nn.Linear(hidden_dim, num_actions)
        self.log_std_linear = nn.Linear(hidden_dim, num_actions)

    def forward(self, state):
        x = self.body(state)
        log_std = torch.clamp(self.log_std_linear(x), min=LOG_SIG_MIN, max=LOG_SIG_MAX)
        return self.mean_linear(x), log_std

    def sample(self, state):
        mean, log_std = self.forward(state)
        normal = Normal(mean, log_std.exp())
        x_t = normal.rsample()
        action = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t) - torch.log(1 - action.pow(2) + EPSILON)
        return action, log_prob.sum(1, keepdim=True), torch.tanh(mean)
