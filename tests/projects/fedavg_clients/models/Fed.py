import copy

import torch


def FedAvg(w):
    """Plain average of client state_dicts (in place on a copy of the first one)."""
    w_avg = copy.deepcopy(w[0])
    for k in w_avg.keys():
        for i in range(1, len(w)):
            w_avg[k] += w[i][k]
        w_avg[k] = torch.div(w_avg[k], len(w))
    return w_avg


class ServerMomentum:
    """FedAvgM: server keeps a velocity over the averaged client deltas."""

    def __init__(self, beta=0.9, server_lr=1.0):
        self.beta = beta
        self.server_lr = server_lr
        self.velocity = {}

    def aggregate(self, deltas):
        avg = {}
        for k in deltas[0]:
            avg[k] = sum(d[k] for d in deltas) / len(deltas)
        for k, v in avg.items():
            if k not in self.velocity:
                self.velocity[k] = torch.zeros_like(v)
            self.velocity[k] = self.beta * self.velocity[k] + v  # known-miss: TLK103
        return avg

    def apply(self, net):
        with torch.no_grad():
            for k, p in net.named_parameters():
                p.add_(self.velocity[k], alpha=self.server_lr)
