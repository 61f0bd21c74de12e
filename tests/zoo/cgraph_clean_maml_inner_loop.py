# Source: https://github.com/katerakelly/pytorch-maml/blob/007635e898059ff2f127ed57fb39cb0faf4759b7/src/inner_loop.py
# Shape: looks like a leak (inner-loop grads with create_graph=True, fast weights rebuilt from them, meta-gradients collected per task and summed across the meta-batch), but the fast weights live only inside one task, the meta-gradients come from a plain autograd.grad, and only .item() metrics are kept.
# Verdict: clean
from collections import OrderedDict
import torch
import torch.nn as nn
import torch.nn.functional as F


class OmniglotNet(nn.Module):
    def __init__(self, num_classes=5, in_dim=64, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, num_classes)

    def forward(self, x, weights=None):
        if weights is None:
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))
        x = F.relu(F.linear(x, weights['fc1.weight'], weights['fc1.bias']))
        x = F.relu(F.linear(x, weights['fc2.weight'], weights['fc2.bias']))
        return F.linear(x, weights['fc3.weight'], weights['fc3.bias'])


class InnerLoop(OmniglotNet):
    def __init__(self, num_updates=2, step_size=0.1, meta_batch_size=4):
        super().__init__()
        self.num_updates = num_updates
        self.step_size = step_size
        self.meta_batch_size = meta_batch_size
        self.loss_fn = nn.CrossEntropyLoss()

    def forward_pass(self, in_, target, weights=None):
        out = super().forward(in_, weights)
        return self.loss_fn(out, target), out

    def adapt(self, task):
        (tr_x, tr_y), (val_x, val_y) = task
        fast_weights = OrderedDict((name, param) for (name, param) in self.named_parameters())
        for i in range(self.num_updates):
            if i == 0:
                loss, _ = self.forward_pass(tr_x, tr_y)
                grads = torch.autograd.grad(loss, self.parameters(), create_graph=True)
            else:
                loss, _ = self.forward_pass(tr_x, tr_y, fast_weights)
                grads = torch.autograd.grad(loss, list(fast_weights.values()), create_graph=True)
            fast_weights = OrderedDict((name, param - self.step_size * grad)
                                       for ((name, param), grad) in zip(list(fast_weights.items()), grads))
        loss, out = self.forward_pass(val_x, val_y, fast_weights)
        loss = loss / self.meta_batch_size
        grads = torch.autograd.grad(loss, self.parameters())
        meta_grads = {name: g for ((name, _), g) in zip(self.named_parameters(), grads)}
        val_acc = (out.argmax(1) == val_y).float().mean().item()
        return (loss.item() * self.meta_batch_size, val_acc), meta_grads


class MetaLearner:
    def __init__(self, meta_batch_size=4, meta_step_size=1e-3):
        self.net = InnerLoop(meta_batch_size=meta_batch_size)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=meta_step_size)
        self.meta_batch_size = meta_batch_size
        self.val_losses, self.val_accs = [], []

    def meta_update(self, ls):
        # sum the meta-gradients of the tasks into .grad, then step
        gradients = {k: sum(d[k] for d in ls) for k in ls[0].keys()}
        self.opt.zero_grad()
        for name, p in self.net.named_parameters():
            p.grad = gradients[name]
        self.opt.step()

    def train(self, tasks_per_iter):
        for tasks in tasks_per_iter:
            grads, metrics = [], []
            for task in tasks:
                m, g = self.net.adapt(task)
                metrics.append(m)
                grads.append(g)
            self.meta_update(grads)
            self.val_losses.append(sum(m[0] for m in metrics) / len(metrics))
            self.val_accs.append(sum(m[1] for m in metrics) / len(metrics))


def make_batches(n):
    # per meta-iteration: the seed of each sampled task
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 10_000, (4,), generator=g) for _ in range(n)]


def sample_task(seed, ways=5, shots=5):
    g = torch.Generator().manual_seed(int(seed))
    protos = torch.randn(ways, 64, generator=g)
    y = torch.arange(ways).repeat(shots)
    tr_x = protos[y] + 0.3 * torch.randn(len(y), 64, generator=g)
    val_x = protos[y] + 0.3 * torch.randn(len(y), 64, generator=g)
    return (tr_x, y), (val_x, y)


def run(batches):
    learner = MetaLearner(meta_batch_size=4)
    learner.train([[sample_task(s) for s in seeds] for seeds in batches])
    return learner.val_losses[-1], learner.val_accs[-1]
