"""Timestep samplers for the diffusion loss (importance sampling by the loss history)."""
from abc import ABC, abstractmethod

import torch as th


def create_named_schedule_sampler(name, diffusion):
    if name == "uniform":
        return UniformSampler(diffusion)
    if name == "loss-second-moment":
        return LossSecondMomentResampler(diffusion)
    raise NotImplementedError(f"unknown schedule sampler: {name}")


class ScheduleSampler(ABC):
    @abstractmethod
    def weights(self):
        """A tensor of weights, one per diffusion step."""

    def sample(self, batch_size, device):
        w = self.weights()
        p = w / w.sum()
        indices = th.multinomial(p, batch_size, replacement=True)
        weights = (1 / (len(p) * p[indices])).float()
        return indices.to(device), weights.to(device)


class UniformSampler(ScheduleSampler):
    def __init__(self, diffusion):
        self.diffusion = diffusion
        self._weights = th.ones([diffusion.num_timesteps], dtype=th.float64)

    def weights(self):
        return self._weights


class LossAwareSampler(ScheduleSampler):
    def update_with_local_losses(self, local_ts, local_losses):
        """Update the reweighting from this step's losses (one process: no all-gather)."""
        self.update_with_all_losses(local_ts.tolist(), list(local_losses))

    @abstractmethod
    def update_with_all_losses(self, ts, losses):
        """Update the reweighting using losses from a model."""


class LossSecondMomentResampler(LossAwareSampler):
    def __init__(self, diffusion, history_per_term=10, uniform_prob=0.001):
        self.diffusion = diffusion
        self.history_per_term = history_per_term
        self.uniform_prob = uniform_prob
        self._loss_history = th.zeros([diffusion.num_timesteps, history_per_term], dtype=th.float64)
        self._loss_counts = [0] * diffusion.num_timesteps

    def weights(self):
        if not self._warmed_up():
            return th.ones([self.diffusion.num_timesteps], dtype=th.float64)
        weights = th.sqrt(th.mean(self._loss_history.detach() ** 2, dim=-1))
        weights /= weights.sum()
        weights *= 1 - self.uniform_prob
        weights += self.uniform_prob / len(weights)
        return weights

    def update_with_all_losses(self, ts, losses):
        for t, loss in zip(ts, losses):
            if self._loss_counts[t] == self.history_per_term:
                # Shift out the oldest loss term.
                self._loss_history[t, :-1] = self._loss_history[t, 1:].clone()
                self._loss_history[t, -1] = loss
            else:
                self._loss_history[t, self._loss_counts[t]] = loss
                self._loss_counts[t] += 1

    def _warmed_up(self):
        return all(count == self.history_per_term for count in self._loss_counts)
