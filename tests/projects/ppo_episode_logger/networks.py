"""Policy / value networks for the PPO agent."""
import torch.nn as nn
from torch.distributions import Categorical


def _mlp(in_dim, out_dim, hidden):
    return nn.Sequential(
        nn.Linear(in_dim, hidden), nn.Tanh(),
        nn.Linear(hidden, hidden), nn.Tanh(),
        nn.Linear(hidden, out_dim),
    )


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(_mlp(state_dim, action_dim, hidden), nn.Softmax(dim=-1))
        self.critic = _mlp(state_dim, 1, hidden)

    def forward(self):
        raise NotImplementedError("use act() or evaluate()")

    def act(self, state):
        probs = self.actor(state)
        dist = Categorical(probs)
        action = dist.sample()
        return action, dist.log_prob(action), self.critic(state).squeeze(-1)

    def evaluate(self, states, actions):
        probs = self.actor(states)
        dist = Categorical(probs)
        values = self.critic(states).squeeze(-1)
        return dist.log_prob(actions), values, dist.entropy()
