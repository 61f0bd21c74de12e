import dataclasses
from collections import deque
from typing import Deque, List, Optional

import torch

__all__ = ["Episode", "FIFOBuffer", "ReplayBuffer", "TransitionMiniBatch", "create_fifo_replay_buffer"]


@dataclasses.dataclass(frozen=True)
class Episode:
    observations: torch.Tensor  # (L, *obs_shape)
    actions: torch.Tensor  # (L, action_size)
    rewards: torch.Tensor  # (L, 1)
    terminated: bool

    @property
    def transition_count(self) -> int:
        return self.observations.shape[0] if self.terminated else self.observations.shape[0] - 1


@dataclasses.dataclass(frozen=True)
class TransitionMiniBatch:
    observations: torch.Tensor
    actions: torch.Tensor
    rewards: torch.Tensor
    next_observations: torch.Tensor
    terminals: torch.Tensor
    intervals: torch.Tensor


class FIFOBuffer:
    def __init__(self, limit: int):
        self._limit = limit
        self._episodes: Deque[Episode] = deque()
        self._transition_count = 0

    def append(self, episode: Episode) -> None:
        self._episodes.append(episode)
        self._transition_count += episode.transition_count
        while self._transition_count > self._limit:
            dropped = self._episodes.popleft()
            self._transition_count -= dropped.transition_count

    @property
    def episodes(self) -> Deque[Episode]:
        return self._episodes

    @property
    def transition_count(self) -> int:
        return self._transition_count


class _EpisodeWriter:
    """Accumulates one in-progress episode step by step."""

    def __init__(self) -> None:
        self.observations: List[torch.Tensor] = []
        self.actions: List[torch.Tensor] = []
        self.rewards: List[float] = []

    def __len__(self) -> int:
        return len(self.observations)


class ReplayBuffer:
    def __init__(self, buffer: FIFOBuffer, seed: int = 0, episodes: Optional[List[Episode]] = None):
        self._buffer = buffer
        self._writer = _EpisodeWriter()
        self._gen = torch.Generator().manual_seed(seed)
        for ep in episodes or []:
            self._buffer.append(ep)

    def append(self, observation, action, reward: float) -> None:
        self._writer.observations.append(torch.as_tensor(observation, dtype=torch.float32))
        self._writer.actions.append(torch.as_tensor(action, dtype=torch.float32))  # known-miss: TLK102
        self._writer.rewards.append(float(reward))

    def clip_episode(self, terminated: bool) -> None:
        if len(self._writer) < 2:
            self._writer = _EpisodeWriter()
            return
        episode = Episode(
            observations=torch.stack(self._writer.observations),
            actions=torch.stack(self._writer.actions),
            rewards=torch.tensor(self._writer.rewards).view(-1, 1),
            terminated=terminated,
        )
        self._buffer.append(episode)
        self._writer = _EpisodeWriter()

    @property
    def transition_count(self) -> int:
        return self._buffer.transition_count

    @property
    def episodes(self) -> Deque[Episode]:
        return self._buffer.episodes

    @torch.no_grad()
    def sample_transition_batch(self, batch_size: int) -> TransitionMiniBatch:
        episodes = list(self._buffer.episodes)
        counts = torch.tensor([ep.transition_count for ep in episodes], dtype=torch.float32)
        ep_idx = torch.multinomial(counts, batch_size, replacement=True, generator=self._gen)
        obs, act, rew, nxt, term = [], [], [], [], []
        for i in ep_idx.tolist():
            ep = episodes[i]
            t = int(torch.randint(0, ep.transition_count, (1,), generator=self._gen))
            last = t + 1 >= ep.observations.shape[0]
            obs.append(ep.observations[t])
            act.append(ep.actions[t])
            rew.append(ep.rewards[t])
            nxt.append(ep.observations[t] if last else ep.observations[t + 1])
            term.append(torch.tensor([1.0 if (last and ep.terminated) else 0.0]))
        return TransitionMiniBatch(
            observations=torch.stack(obs),
            actions=torch.stack(act),
            rewards=torch.stack(rew),
            next_observations=torch.stack(nxt),
            terminals=torch.stack(term),
            intervals=torch.ones(batch_size, 1),
        )


def create_fifo_replay_buffer(limit: int, episodes: Optional[List[Episode]] = None, seed: int = 0) -> ReplayBuffer:
    return ReplayBuffer(FIFOBuffer(limit), seed=seed, episodes=episodes)
