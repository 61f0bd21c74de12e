# Source: https://discuss.pytorch.org/t/cuda-out-of-memory-after-more-than-8000-iterators/27253
# Shape: loss_sum += loss.item() (what the asker suspected) is fine; the model itself sums a monitored entity-norm into self.norm_total on every forward for the epoch log; that running sum is an attached tensor that is never backwarded, so every forward's embedding lookups and norm buffers stay alive until the epoch ends.
# Verdict: leak
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

N_ENT = 400
N_REL = 12
DIM = 64
BATCH = 128


def make_batches(n_batches, seed=0):
    """Lists of (head, relation, tail) ids, like the numpy arrays of the question."""
    random.seed(seed)
    torch.manual_seed(seed)
    triples = [(random.randrange(N_ENT), random.randrange(N_REL), random.randrange(N_ENT))
               for _ in range(2000)]
    out = []
    for _ in range(n_batches):
        batch = random.sample(triples, BATCH)
        head = [h for h, _, _ in batch]
        rel = [r for _, r, _ in batch]
        tail = [t for _, _, t in batch]
        out.append((head, rel, tail))
    return out


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim, p_norm=1):
        super(TransE, self).__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)
        nn.init.xavier_uniform_(self.ent.weight)
        nn.init.xavier_uniform_(self.rel.weight)
        self.p_norm = p_norm
        self.norm_total = 0.0
        self.n_forward = 0

    def entity_norm(self, h, t):
        # monitored per epoch: TransE entities should stay near the unit sphere
        return 0.5 * (h.norm(p=2, dim=-1).mean() + t.norm(p=2, dim=-1).mean())

    def score(self, h, r, t):
        return torch.norm(h + r - t, p=self.p_norm, dim=-1)

    def forward(self, head, rel, tail):
        h, r, t = self.ent(head), self.rel(rel), self.ent(tail)
        self.norm_total += self.entity_norm(h, t)  # TLK101
        self.n_forward += 1
        return self.score(h, r, t)

    def epoch_stats(self):
        avg = float(self.norm_total) / max(self.n_forward, 1)
        self.norm_total, self.n_forward = 0.0, 0
        return avg


class Trainer(object):
    def __init__(self, model, margin=1.0, lr=1e-3):
        self.device = torch.device("cpu")
        self.model = model.to(self.device)
        self.margin = margin
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.loss_history = []

    def corrupt(self, head, tail):
        neg_head, neg_tail = head.clone(), tail.clone()
        mask = torch.rand(head.size(0)) < 0.5
        neg_head[mask] = torch.randint(0, N_ENT, (int(mask.sum()),))
        neg_tail[~mask] = torch.randint(0, N_ENT, (int((~mask).sum()),))
        return neg_head, neg_tail

    def train_step(self, head, rel, tail):
        head = torch.tensor(head).to(self.device)
        rel = torch.tensor(rel).to(self.device)
        tail = torch.tensor(tail).to(self.device)
        neg_head, neg_tail = self.corrupt(head, tail)
        pos = self.model(head, rel, tail)
        neg = self.model(neg_head, rel, neg_tail)
        loss = F.relu(self.margin + pos - neg).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def train_epoch(self, batches):
        loss_sum = 0.0
        for i, (head, rel, tail) in enumerate(batches):
            loss = self.train_step(head, rel, tail)
            loss_sum += loss.item()
            if (i + 1) % 50 == 0:
                print("iter %d loss %.4f" % (i + 1, loss_sum / (i + 1)))
        self.loss_history.append(loss_sum / max(len(batches), 1))


def run(steps):
    torch.manual_seed(0)
    model = TransE(N_ENT, N_REL, DIM)
    trainer = Trainer(model)
    trainer.train_epoch(make_batches(steps))   # one epoch of `steps` iterations
    return trainer


if __name__ == "__main__":
    run(10)
