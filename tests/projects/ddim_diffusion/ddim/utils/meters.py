import torch


class TimestepLossMeter(object):
    """Mean training loss per quarter of the diffusion chain (small t is the hard end)."""

    def __init__(self, num_timesteps, num_buckets=4):
        self.num_timesteps = num_timesteps
        self.num_buckets = num_buckets
        self.sums = torch.zeros(num_buckets)
        self.counts = torch.zeros(num_buckets)

    def update(self, t, losses):
        q = (t * self.num_buckets) // self.num_timesteps
        self.sums = self.sums.index_add(0, q, losses)  # known-miss: TLK101
        self.counts = self.counts.index_add(0, q, torch.ones_like(losses))

    def summary(self):
        means = self.sums / self.counts.clamp(min=1)
        return {"loss_q{}".format(i): float(m) for i, m in enumerate(means)}
