"""Shared pieces: the link-prediction head, negative sampling, early stopping, ranking metrics,
running averages for the progress line, and the optimizer step."""
from collections import defaultdict

import torch


class MergeLayer(torch.nn.Module):
    def __init__(self, dim1, dim2, dim3, dim4):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim1 + dim2, dim3)
        self.fc2 = torch.nn.Linear(dim3, dim4)
        self.act = torch.nn.ReLU()

    def forward(self, x1, x2):
        x = torch.cat([x1, x2], dim=1)
        h = self.act(self.fc1(x))
        return self.fc2(h)


class EarlyStopMonitor:
    def __init__(self, max_round=3, higher_better=True, tolerance=1e-10):
        self.max_round = max_round
        self.num_round = 0
        self.epoch_count = 0
        self.best_epoch = 0
        self.last_best = None
        self.higher_better = higher_better
        self.tolerance = tolerance

    def early_stop_check(self, curr_val):
        if not self.higher_better:
            curr_val *= -1
        if self.last_best is None or (curr_val - self.last_best) / abs(self.last_best) > self.tolerance:
            self.last_best = curr_val
            self.num_round = 0
            self.best_epoch = self.epoch_count
        else:
            self.num_round += 1
        self.epoch_count += 1
        return self.num_round >= self.max_round


class RandEdgeSampler:
    def __init__(self, src_list, dst_list, seed=None):
        self.seed = seed
        self.src_list = src_list.unique()
        self.dst_list = dst_list.unique()
        self.reset_random_state()

    def sample(self, size):
        src_index = torch.randint(0, len(self.src_list), (size,), generator=self.generator)
        dst_index = torch.randint(0, len(self.dst_list), (size,), generator=self.generator)
        return self.src_list[src_index], self.dst_list[dst_index]

    def reset_random_state(self):
        self.generator = torch.Generator()
        if self.seed is not None:
            self.generator.manual_seed(self.seed)


def average_precision(scores, labels):
    order = torch.argsort(scores, descending=True)
    hits = labels[order]
    precision_at_k = hits.cumsum(0) / torch.arange(1, len(hits) + 1)
    return float((precision_at_k * hits).sum() / hits.sum().clamp(min=1))


def roc_auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return 0.5
    return float((pos[:, None] > neg[None, :]).float().mean())


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class AverageMeterSet:
    def __init__(self):
        self.meters = defaultdict(AverageMeter)

    def update(self, n=1, **values):
        for name, value in values.items():
            self.meters[name].update(value, n)

    def reset(self):
        for meter in self.meters.values():
            meter.reset()

    def averages(self, postfix="/avg"):
        return {name + postfix: float(meter.avg) for name, meter in self.meters.items()}


def backward_step(loss, optimizer, max_norm=None, parameters=None, retain_graph=False):
    loss.backward(retain_graph=retain_graph)
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimizer.step()
