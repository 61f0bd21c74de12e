# Source: https://github.com/RUCAIBox/RecBole/pull/307
# Shape: a Trainer keeps a per-epoch dict of lists of batch losses on self, but stores loss.item() floats, so no graph survives the iteration.
# Verdict: clean
import collections
import torch
import torch.nn as nn


class MatrixFactorization(nn.Module):
    def __init__(self, n_users=50, n_items=80, dim=8):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)

    def score(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1)

    def bpr_loss(self, u, pos, neg):
        diff = self.score(u, pos) - self.score(u, neg)
        return -torch.nn.functional.logsigmoid(diff).mean()


class Trainer:
    def __init__(self, model, lr=0.01):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.train_loss_dict = collections.defaultdict(list)
        self.cur_epoch = 0

    def _record(self, loss):
        self.train_loss_dict[self.cur_epoch].append(loss.item())

    def _train_batch(self, interaction):
        u, pos, neg = interaction
        self.optimizer.zero_grad()
        loss = self.model.bpr_loss(u, pos, neg)
        loss.backward()
        self.optimizer.step()
        self._record(loss)
        return loss

    def fit(self, loader):
        for interaction in loader:
            self._train_batch(interaction)
        return self.train_loss_dict


def make_batches(n):
    g = torch.Generator().manual_seed(1)
    return [(torch.randint(0, 50, (16,), generator=g),
             torch.randint(0, 80, (16,), generator=g),
             torch.randint(0, 80, (16,), generator=g)) for _ in range(n)]


def run(batches):
    trainer = Trainer(MatrixFactorization())
    hist = trainer.fit(batches)
    return sum(float(x) for x in hist[0]) / max(1, len(hist[0]))


if __name__ == "__main__":
    print(run(make_batches(10)))
