import random

import torch


class ReplayBuffer(object):
    def __init__(self, size):
        self._storage = []
        self._maxsize = size
        self._next_idx = 0

    def __len__(self):
        return len(self._storage)

    def add(self, obs_t, action, reward, obs_tp1, done):
        data = (obs_t, action, reward, obs_tp1, done)
        if self._next_idx >= len(self._storage):
            self._storage.append(data)
        else:
            self._storage[self._next_idx] = data
        self._next_idx = (self._next_idx + 1) % self._maxsize
        return self._next_idx

    def _encode_sample(self, idxes):
        obses_t, actions, rewards, obses_tp1, dones = [], [], [], [], []
        for i in idxes:
            obs_t, action, reward, obs_tp1, done = self._storage[i]
            obses_t.append(obs_t)
            actions.append(action)
            rewards.append(reward)
            obses_tp1.append(obs_tp1)
            dones.append(float(done))
        return (torch.stack(obses_t), torch.tensor(actions), torch.tensor(rewards),
                torch.stack(obses_tp1), torch.tensor(dones))

    def sample(self, batch_size):
        idxes = [random.randint(0, len(self._storage) - 1) for _ in range(batch_size)]
        return self._encode_sample(idxes) + (torch.ones(batch_size), idxes)


class PrioritizedReplayBuffer(ReplayBuffer):
    def __init__(self, size, alpha=0.6):
        super(PrioritizedReplayBuffer, self).__init__(size)
        self._alpha = alpha
        self._priorities = [0.0] * size
        self._max_priority = 1.0

    def add(self, *args, **kwargs):
        idx = self._next_idx
        super(PrioritizedReplayBuffer, self).add(*args, **kwargs)
        self._priorities[idx] = self._max_priority ** self._alpha

    def sample(self, batch_size, beta=0.4):
        n = len(self._storage)
        probs = torch.tensor(self._priorities[:n])
        probs = probs / probs.sum()
        idxes = torch.multinomial(probs, batch_size, replacement=True).tolist()
        weights = (n * probs[idxes]) ** (-beta)
        weights = weights / weights.max()
        return self._encode_sample(idxes) + (weights, idxes)

    def update_priorities(self, idxes, priorities):
        for idx, priority in zip(idxes, priorities.tolist()):
            self._priorities[idx] = priority ** self._alpha
            self._max_priority = max(self._max_priority, priority)
