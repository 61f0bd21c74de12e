# Source: https://github.com/guoyang9/NCF/blob/0507d5bf7c1253826dfd0afc1f0aa95fac6b23cb/main.py
# Shape: compute_losses returns a dict of attached loss terms; LossTracker.update sums each term (times batch size) into a running dict, so every batch's autograd graph of the epoch is chained into the running totals.
# Verdict: leak
from collections import defaultdict
from dataclasses import dataclass

import math
import random
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data


@dataclass
class NCFConfig:
    user_num: int = 60
    item_num: int = 120
    factor_num: int = 8
    num_layers: int = 3
    dropout: float = 0.0
    num_ng: int = 4
    batch_size: int = 64
    lr: float = 1e-3
    l2: float = 1e-5
    top_k: int = 10
    interactions_per_user: int = 10


class NCFData(data.Dataset):
    def __init__(self, features, num_item, train_mat, num_ng, is_training, seed=0):
        self.features_ps = features
        self.num_item = num_item
        self.train_mat = train_mat
        self.num_ng = num_ng
        self.is_training = is_training
        self.labels = [0 for _ in range(len(features))]
        self.rng = random.Random(seed)
        self.features_fill, self.labels_fill = self.features_ps, self.labels

    def ng_sample(self):
        assert self.is_training, 'no need to sampling when testing'
        features_ng = []
        for x in self.features_ps:
            u = x[0]
            for _ in range(self.num_ng):
                j = self.rng.randrange(self.num_item)
                while (u, j) in self.train_mat:
                    j = self.rng.randrange(self.num_item)
                features_ng.append([u, j])
        labels_ps = [1 for _ in range(len(self.features_ps))]
        labels_ng = [0 for _ in range(len(features_ng))]
        self.features_fill = self.features_ps + features_ng
        self.labels_fill = labels_ps + labels_ng

    def __len__(self):
        return len(self.labels_fill)

    def __getitem__(self, idx):
        user, item = self.features_fill[idx]
        return user, item, self.labels_fill[idx]


class NCF(nn.Module):
    """NeuMF-end: GMF and MLP towers fused by a linear predict layer."""

    def __init__(self, user_num, item_num, factor_num, num_layers, dropout):
        super().__init__()
        self.embed_user_GMF = nn.Embedding(user_num, factor_num)
        self.embed_item_GMF = nn.Embedding(item_num, factor_num)
        self.embed_user_MLP = nn.Embedding(user_num, factor_num * (2 ** (num_layers - 1)))
        self.embed_item_MLP = nn.Embedding(item_num, factor_num * (2 ** (num_layers - 1)))
        MLP_modules = []
        for i in range(num_layers):
            input_size = factor_num * (2 ** (num_layers - i))
            MLP_modules += [nn.Dropout(p=dropout), nn.Linear(input_size, input_size // 2), nn.ReLU()]
        self.MLP_layers = nn.Sequential(*MLP_modules)
        self.predict_layer = nn.Linear(factor_num * 2, 1)
        for m in (self.embed_user_GMF, self.embed_item_GMF, self.embed_user_MLP, self.embed_item_MLP):
            nn.init.normal_(m.weight, std=0.01)

    def forward(self, user, item):
        output_GMF = self.embed_user_GMF(user) * self.embed_item_GMF(item)
        interaction = torch.cat((self.embed_user_MLP(user), self.embed_item_MLP(item)), -1)
        output_MLP = self.MLP_layers(interaction)
        return self.predict_layer(torch.cat((output_GMF, output_MLP), -1)).view(-1)


class LossTracker:
    """Sample-weighted running means of every loss term, reset once per epoch."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.totals = defaultdict(float)
        self.count = 0

    def update(self, losses, n):
        for k, v in losses.items():
            self.totals[k] += v * n  # TLK101
        self.count += n

    @property
    def means(self):
        return {k: float(v) / max(self.count, 1) for k, v in self.totals.items()}


def compute_losses(model, user, item, label, cfg):
    prediction = model(user, item)
    bce = nn.functional.binary_cross_entropy_with_logits(prediction, label)
    reg = cfg.l2 * (model.embed_user_GMF(user).pow(2).sum() + model.embed_item_GMF(item).pow(2).sum()) / len(user)
    return {"bce": bce, "reg": reg}


@torch.no_grad()
def metrics(model, users, train_mat, item_num, top_k):
    HR, NDCG = [], []
    for u in users:
        items = torch.arange(item_num)
        scores = model(torch.full_like(items, u), items)
        seen = [i for i in range(item_num) if (u, i) in train_mat]
        scores[seen] = -1e9
        recommends = torch.topk(scores, top_k).indices.tolist()
        gt = (u * 7) % item_num
        HR.append(1.0 if gt in recommends else 0.0)
        NDCG.append(1.0 / math.log2(recommends.index(gt) + 2) if gt in recommends else 0.0)
    return HR, NDCG


def make_batches(cfg=None, seed=0):
    cfg = cfg or NCFConfig()
    rng = random.Random(seed)
    train_data = []
    for u in range(cfg.user_num):
        for i in rng.sample(range(cfg.item_num), cfg.interactions_per_user):
            train_data.append([u, int(i)])
    train_mat = {(u, i) for u, i in train_data}
    dataset = NCFData(train_data, cfg.item_num, train_mat, cfg.num_ng, True, seed=seed)
    return dataset, train_mat


class NCFTrainer:
    def __init__(self, cfg: NCFConfig):
        self.cfg = cfg
        self.model = NCF(cfg.user_num, cfg.item_num, cfg.factor_num, cfg.num_layers, cfg.dropout)
        self.optimizer = optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.tracker = LossTracker()
        self.count = 0
        self.best_hr = 0.0

    def train_step(self, user, item, label):
        self.model.train()
        self.model.zero_grad()
        losses = compute_losses(self.model, user, item, label.float(), self.cfg)
        loss = sum(losses.values())
        loss.backward()
        self.optimizer.step()
        self.tracker.update(losses, len(user))
        self.count += 1

    def fit(self, dataset, train_mat, steps):
        torch.manual_seed(0)
        while self.count < steps:
            dataset.ng_sample()
            loader = data.DataLoader(dataset, batch_size=self.cfg.batch_size, shuffle=True)
            self.tracker.reset()
            for user, item, label in loader:
                self.train_step(user, item, label)
                if self.count >= steps:
                    break
            HR, NDCG = metrics(self.model, range(0, self.cfg.user_num, 6), train_mat, self.cfg.item_num, self.cfg.top_k)
            self.best_hr = max(self.best_hr, sum(HR) / len(HR))
        return self


def run(steps):
    torch.manual_seed(0)
    cfg = NCFConfig()
    dataset, train_mat = make_batches(cfg)
    trainer = NCFTrainer(cfg).fit(dataset, train_mat, steps)
    return trainer


if __name__ == "__main__":
    run(10)
