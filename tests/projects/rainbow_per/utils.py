# Modelled on utils.py of Kaixhin/Rainbow (a small module of helpers beside agent.py and main.py),
# with what forks add there: the optimisation step with gradient-norm clipping factored out of
# learn(), and a Stats object summing training metrics between log lines.
import torch


def backward_and_clip(loss, optimiser, parameters, max_norm):
    optimiser.zero_grad()
    loss.backward(retain_graph=True)  # expect: TLK201
    torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimiser.step()


class Stats(object):
    def __init__(self):
        self.sums = {}
        self.counts = {}

    def add(self, key, value):
        self.sums[key] = self.sums.get(key, 0.0) + value
        self.counts[key] = self.counts.get(key, 0) + 1

    def mean(self, key):
        return self.sums[key] / max(self.counts[key], 1)

    def reset(self):
        self.sums, self.counts = {}, {}
