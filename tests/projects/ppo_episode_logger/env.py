"""A tiny synthetic environment so the agent runs without gym."""
import torch


class DriftEnv:
    """State drifts randomly; reward 1 when the action matches the sign of state[0]."""

    def __init__(self, state_dim=6, n_actions=2, horizon=12, seed=0):
        self.state_dim = state_dim
        self.n_actions = n_actions
        self.horizon = horizon
        self.gen = torch.Generator().manual_seed(seed)
        self.t = 0
        self.state = None

    def reset(self):
        self.t = 0
        self.state = torch.randn(self.state_dim, generator=self.gen)
        return self.state.clone()

    def step(self, action):
        self.t += 1
        target = int(self.state[0] > 0)
        reward = 1.0 if int(action) == target else 0.0
        noise = torch.randn(self.state_dim, generator=self.gen)
        self.state = 0.8 * self.state + 0.2 * noise
        done = self.t >= self.horizon
        return self.state.clone(), reward, done
