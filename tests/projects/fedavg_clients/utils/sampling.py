"""Synthetic non-iid client partition (stands in for mnist_noniid)."""
import torch


def make_dataset(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 8, 8, generator=g)
    y = (x.mean(dim=(1, 2, 3)) > 0).long() + 2 * (x[:, :, :4].mean(dim=(1, 2, 3)) > 0).long()
    return x, y


def noniid_split(labels, num_users, seed=0):
    g = torch.Generator().manual_seed(seed)
    order = torch.argsort(labels * 1000 + torch.randint(0, 1000, labels.shape, generator=g))
    shards = order.chunk(num_users)
    return {i: shards[i].tolist() for i in range(num_users)}


def sample_clients(num_users, frac, rnd):
    m = max(int(frac * num_users), 1)
    g = torch.Generator().manual_seed(rnd)
    return torch.randperm(num_users, generator=g)[:m].tolist()
