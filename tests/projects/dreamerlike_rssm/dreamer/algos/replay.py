"""Uniform sequence replay buffer with preallocated storage (after rlpyt's
UniformSequenceReplayBuffer): time-major [T, B, ...] tensors written in place."""
from typing import NamedTuple

import torch


class SamplesToBuffer(NamedTuple):
    observation: torch.Tensor
    action: torch.Tensor
    reward: torch.Tensor
    done: torch.Tensor


class SamplesFromReplay(NamedTuple):
    all_observation: torch.Tensor
    all_action: torch.Tensor
    all_reward: torch.Tensor
    done: torch.Tensor


class UniformSequenceReplayBuffer:
    def __init__(self, example: SamplesToBuffer, size: int, B: int, seed=0):
        self.T = size // B
        self.B = B
        self.size = self.T * B
        self.samples = SamplesToBuffer(*[
            torch.zeros((self.T, B) + tuple(x.shape), dtype=x.dtype) for x in example])
        self.t = 0
        self._buffer_full = False
        self._g = torch.Generator().manual_seed(seed + 2)

    def append_samples(self, samples: SamplesToBuffer):
        """Write one time step [B, ...] for every env."""
        t = self.t
        self.samples.observation[t] = samples.observation
        self.samples.action[t] = samples.action  # known-miss: TLK102
        self.samples.reward[t] = samples.reward
        self.samples.done[t] = samples.done
        self.t = (t + 1) % self.T
        if self.t == 0:
            self._buffer_full = True
        return t

    @property
    def filled(self):
        return self.T if self._buffer_full else self.t

    def sample_batch(self, batch_B, batch_T):
        """Sample batch_B sequences of length batch_T + 1 (one step of prefix)."""
        high = self.filled - batch_T - 1
        assert high > 0, "not enough data in replay"
        with torch.no_grad():
            t_idxs = torch.randint(0, high, (batch_B,), generator=self._g)
            b_idxs = torch.randint(0, self.B, (batch_B,), generator=self._g)
            steps = torch.arange(batch_T + 1).unsqueeze(1) + t_idxs.unsqueeze(0)  # [T+1, batch_B]
            obs = self.samples.observation[steps, b_idxs]
            act = self.samples.action[steps, b_idxs]
            rew = self.samples.reward[steps, b_idxs]
            done = self.samples.done[steps[1:], b_idxs]
        return SamplesFromReplay(obs, act, rew, done)


def initialize_replay_buffer(self, examples, batch_B):
    example_to_buffer = SamplesToBuffer(
        observation=examples["observation"],
        action=examples["action"],
        reward=examples["reward"],
        done=examples["done"],
    )
    return UniformSequenceReplayBuffer(example=example_to_buffer, size=self.replay_size, B=batch_B)


def samples_to_buffer(samples):
    return SamplesToBuffer(observation=samples.observation, action=samples.action,
                           reward=samples.reward, done=samples.done)
