# Source: https://github.com/fastai/fastai/pull/2132
# Shape: predict_with_mc_dropout runs T stochastic forward passes with grad enabled (dropout needs train mode, nobody wrapped it in no_grad); the mean BALD score of each queried chunk is appended to learner.acquisition_history every step, so each step's T un-backwarded forward graphs stay alive.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ALConfig:
    in_dim = 32
    hidden = 64
    num_classes = 5
    p_drop = 0.3
    mc_samples = 6
    pool_chunk = 32
    query_size = 4
    lr = 1e-3
    batch_size = 16


class DropoutMLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg.in_dim, cfg.hidden), nn.ReLU(), nn.Dropout(cfg.p_drop),
            nn.Linear(cfg.hidden, cfg.hidden), nn.ReLU(), nn.Dropout(cfg.p_drop),
            nn.Linear(cfg.hidden, cfg.num_classes))

    def forward(self, x):
        return self.layers(x)


def entropy(p, dim=-1, eps=1e-10):
    return -(p * torch.log(p + eps)).sum(dim=dim)


class ActiveLearner:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.acquisition_history = []
        self.labelled = []

    def fit_one_batch(self, xb, yb):
        self.model.train()
        loss = F.cross_entropy(self.model(xb), yb)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def predict_with_mc_dropout(self, x, n_times=10):
        # dropout stays on: every pass samples a different sub-network
        self.model.train()
        return [F.softmax(self.model(x), dim=-1) for _ in range(n_times)]

    def bald_scores(self, x):
        probs = torch.stack(self.predict_with_mc_dropout(x, self.cfg.mc_samples))
        mean_p = probs.mean(0)
        predictive_entropy = entropy(mean_p)
        expected_entropy = entropy(probs).mean(0)
        return predictive_entropy - expected_entropy

    def query(self, pool_x, pool_idx):
        scores = self.bald_scores(pool_x)
        self.acquisition_history.append(scores.mean())  # TLK102
        top = torch.topk(scores, self.cfg.query_size).indices
        picked = [pool_idx[i] for i in top.tolist()]
        self.labelled.extend(picked)
        return picked


class SyntheticPool:
    def __init__(self, cfg, size=2048):
        g = torch.Generator().manual_seed(11)
        self.x = torch.randn(size, cfg.in_dim, generator=g)
        w = torch.randn(cfg.in_dim, cfg.num_classes, generator=g)
        self.y = (self.x @ w).argmax(-1)

    def chunk(self, seed, n):
        g = torch.Generator().manual_seed(seed)
        idx = torch.randint(0, self.x.size(0), (n,), generator=g)
        return self.x[idx], idx.tolist()

    def batch(self, seed, n):
        x, idx = self.chunk(seed + 1, n)
        return x, self.y[torch.tensor(idx)]


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 100_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    cfg = ALConfig()
    pool = SyntheticPool(cfg)
    learner = ActiveLearner(DropoutMLP(cfg), cfg)
    losses = []
    for step, seed in enumerate(batches):
        xb, yb = pool.batch(seed, cfg.batch_size)
        losses.append(learner.fit_one_batch(xb, yb))
        pool_x, pool_idx = pool.chunk(seed, cfg.pool_chunk)
        learner.query(pool_x, pool_idx)
    mean_loss = sum(losses) / max(len(losses), 1)
    return learner, mean_loss if not math.isnan(mean_loss) else 0.0
