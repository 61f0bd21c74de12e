# Source: https://github.com/horovod/horovod/pull/641
# Shape: ImageNet-style horovod training: a Metric class averages a value over the workers with hvd.allreduce and adds it to its running sum; train() hands it the graph-attached loss every batch, so the metric's sum chains every step's graph for the whole epoch.
# Verdict: leak
import math

import horovod.torch as hvd
import torch
import torch.nn.functional as F


class Metric:
    """Average of a value over all workers and all batches of an epoch."""

    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val):
        self.sum += hvd.allreduce(val.cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


def accuracy(output, target):
    pred = output.max(1, keepdim=True)[1]
    return pred.eq(target.view_as(pred)).cpu().float().mean()


def adjust_learning_rate(optimizer, epoch, batch_idx, steps_per_epoch, base_lr, warmup_epochs=5):
    if epoch < warmup_epochs:
        progress = (epoch * steps_per_epoch + batch_idx + 1) / (warmup_epochs * steps_per_epoch)
        lr_adj = 1.0 / hvd.size() * (progress * (hvd.size() - 1) + 1)
    else:
        lr_adj = 0.5 * (1 + math.cos(math.pi * (epoch - warmup_epochs) / 90))
    for param_group in optimizer.param_groups:
        param_group["lr"] = base_lr * hvd.size() * lr_adj


def train(epoch, net, optimizer, train_loader, base_lr, log_interval=100):
    net.train()
    train_loss = Metric("train_loss")
    train_accuracy = Metric("train_accuracy")
    for batch_idx, (data, target) in enumerate(train_loader):
        adjust_learning_rate(optimizer, epoch, batch_idx, len(train_loader), base_lr)
        optimizer.zero_grad()
        output = net(data)
        objective = F.cross_entropy(output, target)
        objective.backward()
        optimizer.step()
        train_accuracy.update(accuracy(output, target))
        train_loss.update(objective)  # TLK101
        if batch_idx % log_interval == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} [{batch_idx}/{len(train_loader)}] loss {train_loss.avg.item():.4f} "
                  f"acc {100.0 * train_accuracy.avg.item():.2f}%")
    return train_loss.avg.item(), train_accuracy.avg.item()
