# Source: https://github.com/visionml/pytracking/pull/313
# Shape: an LTR-style trainer keeps one AverageMeter per statistic and loader; the actor returns the loss together with a stats dict whose values are the attached loss terms, and the trainer's _update_stats helper hands each value to meter.update, whose running sum chains every batch's graph.
# Verdict: leak
from collections import OrderedDict

import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class IoUNetActor:
    def __init__(self, net, objective, loss_weight=1.0):
        self.net = net
        self.objective = objective
        self.loss_weight = loss_weight

    def __call__(self, data):
        iou_pred = self.net(data["train_images"], data["test_images"], data["train_anno"], data["test_proposals"])
        iou_loss = self.objective(iou_pred.view(-1), data["proposal_iou"].view(-1))
        total = self.loss_weight * iou_loss
        stats = {"Loss/total": total, "Loss/iou": iou_loss}
        return total, stats


class LTRTrainer:
    def __init__(self, actor, loaders, optimizer):
        self.actor = actor
        self.loaders = loaders
        self.optimizer = optimizer
        self.stats = OrderedDict({loader.name: None for loader in loaders})

    def _update_stats(self, new_stats, batch_size, loader):
        if self.stats[loader.name] is None:
            self.stats[loader.name] = OrderedDict({name: AverageMeter() for name in new_stats})
        for name, val in new_stats.items():
            self.stats[loader.name][name].update(val, batch_size)  # TLK101

    def cycle_dataset(self, loader):
        self.actor.net.train(loader.training)
        torch.set_grad_enabled(loader.training)
        for i, data in enumerate(loader, 1):
            loss, stats = self.actor(data)
            if loader.training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self._update_stats(stats, loader.batch_size, loader)
            if i % 100 == 0:
                print(loader.name, i, {k: float(m.avg) for k, m in self.stats[loader.name].items()})

    def train_epoch(self):
        for loader in self.loaders:
            self.cycle_dataset(loader)
