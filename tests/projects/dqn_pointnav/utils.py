import random

import torch


def set_global_seeds(seed):
    random.seed(seed)
    torch.manual_seed(seed)


class LinearSchedule(object):
    def __init__(self, schedule_timesteps, final_p, initial_p=1.0):
        self.schedule_timesteps = schedule_timesteps
        self.final_p = final_p
        self.initial_p = initial_p

    def value(self, t):
        fraction = min(float(t) / self.schedule_timesteps, 1.0)
        return self.initial_p + fraction * (self.final_p - self.initial_p)


def soft_update(target, source, tau):
    """Polyak averaging of target network parameters."""
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.copy_(tau * param + (1.0 - tau) * target_param)  # expect: TLK103


class TrainingStats(object):
    """Episode returns and mean TD loss between two prints."""

    def __init__(self):
        self.episode_returns = [0.0]
        self.loss_sum = 0.0
        self.n_updates = 0

    def add_reward(self, r, done):
        self.episode_returns[-1] += r
        if done:
            self.episode_returns.append(0.0)

    def add_loss(self, loss):
        self.loss_sum += loss  # expect: TLK101
        self.n_updates += 1

    def mean_loss(self):
        return float(self.loss_sum) / max(self.n_updates, 1)

    def reset_losses(self):
        self.loss_sum, self.n_updates = 0.0, 0
