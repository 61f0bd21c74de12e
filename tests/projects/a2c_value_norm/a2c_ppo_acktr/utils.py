# Modelled on the running statistics that ikostrikov/pytorch-a2c-ppo-acktr-gail takes from
# baselines' VecNormalize (RunningMeanStd), kept here in the package's utils module.
import torch


class RunningMeanStd:
    """Running mean and variance of a stream of batches (parallel-variance update)."""

    def __init__(self, shape=()):
        self.mean = torch.zeros(shape)
        self.var = torch.ones(shape)
        self.count = 1e-4

    def update(self, batch):
        batch_mean = batch.mean(0)
        batch_var = batch.var(0, unbiased=False)
        batch_count = batch.shape[0]
        delta = batch_mean - self.mean
        total = self.count + batch_count
        # Carries the graph of every batch ever given with grad: self.mean and self.var
        # chain each update onto the previous one.
        self.mean = self.mean + delta * batch_count / total
        m2 = self.var * self.count + batch_var * batch_count + delta.pow(2) * self.count * batch_count / total
        self.var = m2 / total
        self.count = total


def policy_entropy(actor_critic, obs):
    """Mean entropy of the policy on a batch of observations (for the log)."""
    _, dist = actor_critic(obs)
    return dist.entropy().mean()


def policy_entropy_value(actor_critic, obs):
    with torch.no_grad():
        _, dist = actor_critic(obs)
    return dist.entropy().mean().item()
