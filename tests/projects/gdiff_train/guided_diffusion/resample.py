from abc import ABC, abstractmethod
from collections import deque

import torch as th


def create_named_schedule_sampler(name, diffusion):
    """
    Create a ScheduleSampler from a library of pre-defined samplers.
    """
    if name == "uniform":
        return UniformSampler(diffusion)
    elif name == "loss-second-moment":
        return LossSecondMomentResampler(diffusion)
    else:
        raise NotImplementedError(f"unknown schedule sampler: {name}")


class ScheduleSampler(ABC):
    """
    A distribution over timesteps in the diffusion process, intended to reduce
    variance of the objective.
    """

    @abstractmethod
    def weights(self):
        """
        Get a tensor of weights, one per diffusion step.
        """

    def sample(self, batch_size, device):
        """
        Importance-sample timesteps for a batch.

        :return: a tuple (timesteps, weights).
        """
        w = self.weights()
        p = w / w.sum()
        indices = th.multinomial(p, batch_size, replacement=True).to(device)
        weights = (1.0 / (len(p) * p[indices])).float().to(device)
        return indices, weights


class UniformSampler(ScheduleSampler):
    def __init__(self, diffusion):
        self.diffusion = diffusion
        self._weights = th.ones(diffusion.num_timesteps, dtype=th.float64)

    def weights(self):
        return self._weights


class LossAwareSampler(ScheduleSampler):
    def update_with_local_losses(self, local_ts, local_losses):
        """
        Update the reweighting using losses from a model (single process: the
        local batch is the whole batch).

        :param local_ts: an integer Tensor of timesteps.
        :param local_losses: a 1D Tensor of losses.
        """
        timesteps = [int(x) for x in local_ts]
        losses = list(local_losses)
        self.update_with_all_losses(timesteps, losses)

    @abstractmethod
    def update_with_all_losses(self, ts, losses):
        """
        Update the reweighting using losses from a model.
        """


class LossSecondMomentResampler(LossAwareSampler):
    def __init__(self, diffusion, history_per_term=10, uniform_prob=0.001):
        self.diffusion = diffusion
        self.history_per_term = history_per_term
        self.uniform_prob = uniform_prob
        self._loss_history = [
            deque(maxlen=history_per_term) for _ in range(diffusion.num_timesteps)
        ]

    def weights(self):
        if not self._warmed_up():
            return th.ones(self.diffusion.num_timesteps, dtype=th.float64)
        weights = th.tensor(
            [
                (sum(float(l) ** 2 for l in hist) / len(hist)) ** 0.5
                for hist in self._loss_history
            ],
            dtype=th.float64,
        )
        weights /= weights.sum()
        weights *= 1 - self.uniform_prob
        weights += self.uniform_prob / len(weights)
        return weights

    def update_with_all_losses(self, ts, losses):
        for t, loss in zip(ts, losses):
            self._loss_history[t].append(loss)  # expect: TLK102

    def num_recorded(self):
        return sum(len(h) for h in self._loss_history)

    def _warmed_up(self):
        return all(len(h) == self.history_per_term for h in self._loss_history)
