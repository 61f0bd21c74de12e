import numpy as np

import torch
import utils


class ReplayBuffer(object):
    """Buffer to store environment transitions, with proportional priorities."""
    def __init__(self, obs_shape, action_shape, capacity, image_pad, device,
                 alpha=0.6, beta=0.4):
        self.capacity = capacity
        self.device = device
        self.image_pad = image_pad
        self.alpha = alpha
        self.beta = beta

        self.obses = np.empty((capacity, *obs_shape), dtype=np.uint8)
        self.next_obses = np.empty((capacity, *obs_shape), dtype=np.uint8)
        self.actions = np.empty((capacity, *action_shape), dtype=np.float32)
        self.rewards = np.empty((capacity, 1), dtype=np.float32)
        self.not_dones = np.empty((capacity, 1), dtype=np.float32)
        self.not_dones_no_max = np.empty((capacity, 1), dtype=np.float32)

        self._priorities = [0.0] * capacity
        self._max_priority = 1.0

        self.idx = 0
        self.full = False

    def __len__(self):
        return self.capacity if self.full else self.idx

    def add(self, obs, action, reward, next_obs, done, done_no_max):
        np.copyto(self.obses[self.idx], obs)
        np.copyto(self.actions[self.idx], action)
        np.copyto(self.rewards[self.idx], reward)
        np.copyto(self.next_obses[self.idx], next_obs)
        np.copyto(self.not_dones[self.idx], not done)
        np.copyto(self.not_dones_no_max[self.idx], not done_no_max)
        # new transitions are replayed at least once
        self._priorities[self.idx] = self._max_priority

        self.idx = (self.idx + 1) % self.capacity
        self.full = self.full or self.idx == 0

    def _sample_idxs(self, batch_size):
        n = len(self)
        prios = np.asarray([float(p) for p in self._priorities[:n]],
                           dtype=np.float64) ** self.alpha
        probs = prios / prios.sum()
        idxs = np.random.choice(n, size=batch_size, p=probs)
        weights = (n * probs[idxs]) ** (-self.beta)
        weights = weights / weights.max()
        return idxs, weights.astype(np.float32)

    def update_priorities(self, idxs, priorities):
        for i, p in zip(idxs, priorities):
            self._priorities[i] = p  # expect: TLK102
            self._max_priority = max(self._max_priority, float(p))

    def sample(self, batch_size):
        idxs, weights = self._sample_idxs(batch_size)

        obses = self.obses[idxs]
        next_obses = self.next_obses[idxs]
        obses_aug = obses.copy()
        next_obses_aug = next_obses.copy()

        obses = torch.as_tensor(obses, device=self.device).float()
        next_obses = torch.as_tensor(next_obses, device=self.device).float()
        obses_aug = torch.as_tensor(obses_aug, device=self.device).float()
        next_obses_aug = torch.as_tensor(next_obses_aug,
                                         device=self.device).float()
        actions = torch.as_tensor(self.actions[idxs], device=self.device)
        rewards = torch.as_tensor(self.rewards[idxs], device=self.device)
        not_dones_no_max = torch.as_tensor(self.not_dones_no_max[idxs],
                                           device=self.device)
        weights = torch.as_tensor(weights, device=self.device).unsqueeze(1)

        obses = utils.random_shift(obses, self.image_pad)
        next_obses = utils.random_shift(next_obses, self.image_pad)

        obses_aug = utils.random_shift(obses_aug, self.image_pad)
        next_obses_aug = utils.random_shift(next_obses_aug, self.image_pad)

        return (obses, actions, rewards, next_obses, not_dones_no_max,
                obses_aug, next_obses_aug, idxs, weights)
