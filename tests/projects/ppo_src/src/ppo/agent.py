# Modelled on the PPO class of nikhilbarhate99/PPO-PyTorch (PPO.py): the agent owns the policy
# and the rollout buffer, and select_action() records each step into the buffer.
import torch

from .buffer import RolloutBuffer
from .policy import ActorCritic


class PPO:
    def __init__(self, state_dim, action_dim, lr=3e-4):
        self.buffer = RolloutBuffer()
        self.policy = ActorCritic(state_dim, action_dim)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)

    def select_action(self, state, reward, done):
        state = torch.as_tensor(state, dtype=torch.float32)
        action, logprob, value = self.policy.act(state)
        self.buffer.add(state, action, logprob, value, reward, done)
        return action.item()

    def select_action_no_grad(self, state, reward, done):
        with torch.no_grad():
            state = torch.as_tensor(state, dtype=torch.float32)
            action, logprob, value = self.policy.act(state)
        self.buffer.add(state, action, logprob, value, reward, done)
        return action.item()
