"""Episodes stored as preallocated tensors, and the replay buffer that samples whole episodes."""
import random

import torch as th


class EpisodeBatch:
    def __init__(self, scheme, batch_size, max_seq_length, data=None):
        self.scheme = scheme
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        if data is not None:
            self.data = data
        else:
            self.data = {
                key: th.zeros(batch_size, max_seq_length, *shape, dtype=dtype)
                for key, (shape, dtype) in scheme.items()
            }

    def update(self, data, ts):
        for key, value in data.items():
            value = th.as_tensor(value, dtype=self.data[key].dtype)
            self.data[key][:, ts] = value.view_as(self.data[key][:, ts])

    def __getitem__(self, key):
        return self.data[key]


class ReplayBuffer:
    def __init__(self, scheme, buffer_size, max_seq_length):
        self.scheme = scheme
        self.buffer_size = buffer_size
        self.max_seq_length = max_seq_length
        self.episodes = []

    def insert_episode_batch(self, episode):
        self.episodes.append(episode)
        if len(self.episodes) > self.buffer_size:
            self.episodes.pop(0)

    def can_sample(self, batch_size):
        return len(self.episodes) >= batch_size

    def sample(self, batch_size):
        chosen = random.sample(self.episodes, batch_size)
        data = {key: th.cat([episode[key] for episode in chosen]) for key in self.scheme}
        return EpisodeBatch(self.scheme, batch_size, self.max_seq_length, data=data)
