"""The on-policy rollout buffer and the buffer of expert demonstrations."""
import torch


class SerializedBuffer:
    def __init__(self, states, actions):
        self.states = states
        self.actions = actions
        self.buffer_size = self._n = states.size(0)

    def sample(self, batch_size):
        idxes = torch.randint(low=0, high=self._n, size=(batch_size,))
        return self.states[idxes], self.actions[idxes]


class RolloutBuffer:
    def __init__(self, buffer_size, state_shape, action_shape, device="cpu"):
        self._n = 0
        self._p = 0
        self.buffer_size = buffer_size
        self.states = torch.empty((buffer_size, *state_shape), dtype=torch.float, device=device)
        self.actions = torch.empty((buffer_size, *action_shape), dtype=torch.float, device=device)
        self.rewards = torch.empty((buffer_size, 1), dtype=torch.float, device=device)
        self.dones = torch.empty((buffer_size, 1), dtype=torch.float, device=device)
        self.log_pis = torch.empty((buffer_size, 1), dtype=torch.float, device=device)
        self.next_states = torch.empty((buffer_size, *state_shape), dtype=torch.float, device=device)

    def append(self, state, action, reward, done, log_pi, next_state):
        self.states[self._p].copy_(state)
        self.actions[self._p].copy_(action)
        self.rewards[self._p] = float(reward)
        self.dones[self._p] = float(done)
        self.log_pis[self._p] = float(log_pi)
        self.next_states[self._p].copy_(next_state)
        self._p = (self._p + 1) % self.buffer_size
        self._n = min(self._n + 1, self.buffer_size)

    def get(self):
        assert self._p % self.buffer_size == 0
        start = (self._p - self.buffer_size) % self.buffer_size
        idxes = slice(start, start + self.buffer_size)
        return (
            self.states[idxes],
            self.actions[idxes],
            self.rewards[idxes],
            self.dones[idxes],
            self.log_pis[idxes],
            self.next_states[idxes],
        )

    def sample(self, batch_size):
        assert self._p % self.buffer_size == 0
        idxes = torch.randint(low=0, high=self._n, size=(batch_size,))
        return self.states[idxes], self.actions[idxes], self.rewards[idxes], self.dones[idxes], self.log_pis[idxes], self.next_states[idxes]
