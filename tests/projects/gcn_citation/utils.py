import random
from collections import defaultdict

import torch


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


def normalize_adj(adj):
    """Symmetrically normalize adjacency matrix with self loops: D^-1/2 (A+I) D^-1/2."""
    adj = adj + torch.eye(adj.shape[0])
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.
    return d_inv_sqrt[:, None] * adj * d_inv_sqrt[None, :]


def load_data(n_nodes=300, n_feat=64, n_class=5, p_in=0.05, p_out=0.004):
    """Synthetic citation graph (stochastic block model) standing in for Cora."""
    print('Loading synthetic citation dataset...')
    labels = torch.randint(0, n_class, (n_nodes,))
    same = labels[:, None] == labels[None, :]
    probs = torch.where(same, torch.full_like(same, p_in, dtype=torch.float),
                        torch.full_like(same, p_out, dtype=torch.float))
    adj = (torch.rand(n_nodes, n_nodes) < probs).float()
    adj = torch.triu(adj, 1)
    adj = adj + adj.t()
    centers = torch.randn(n_class, n_feat)
    features = centers[labels] + 1.5 * torch.randn(n_nodes, n_feat)
    features = features / features.norm(dim=1, keepdim=True)
    adj = normalize_adj(adj)
    perm = torch.randperm(n_nodes)
    idx_train = perm[:140]
    idx_val = perm[140:220]
    idx_test = perm[220:]
    return adj, features, labels, idx_train, idx_val, idx_test


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


def loss_value(loss):
    """Scalar for logging/printing."""
    return loss.item()


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name=''):
        self.name = name
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


class Logger(object):
    """Keeps a per-key history of everything that was logged during a run."""

    def __init__(self):
        self.history = defaultdict(list)

    def log(self, key, value):
        self.history[key].append(value)

    def log_dict(self, stats, prefix=''):
        for k, v in stats.items():
            self.log(prefix + k, v)

    def last(self, key):
        return self.history[key][-1]
