# Source: https://github.com/pytorch/torchtitan/issues/763
# Shape: the bf16-autocast, gradient-accumulating train loop appends each step's (graph-attached) loss to losses_since_last_log and only drains it at log steps, so with infrequent logging every step's loss graph stays referenced.
# Verdict: leak
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


VOCAB, SEQ, DIM = 64, 16, 32


def make_batches(n, micro_bs=4, accum=2):
    g = torch.Generator().manual_seed(0)
    return [[torch.randint(0, VOCAB, (micro_bs, SEQ + 1), generator=g) for _ in range(accum)]
            for _ in range(n)]


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.mix = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, idx):
        h = self.tok(idx)
        h = h + self.mix(self.norm(h))
        return self.head(self.norm(h))


class WandbLikeRun:
    """Minimal stand-in for a metrics backend: keeps rows of plain numbers."""

    def __init__(self):
        self.rows = []

    def log(self, metrics, step):
        self.rows.append({"_step": step, **metrics})


class MetricsProcessor:
    def __init__(self, backend, log_freq):
        self.backend = backend
        self.log_freq = log_freq
        self.losses_since_last_log = []
        self.time_last_log = time.perf_counter()

    def should_log(self, step):
        return step == 1 or step % self.log_freq == 0

    def log(self, step):
        losses = [float(l) for l in self.losses_since_last_log]
        self.backend.log({"loss_metrics/global_avg_loss": sum(losses) / len(losses),
                          "loss_metrics/global_max_loss": max(losses),
                          "time_metrics/elapsed": time.perf_counter() - self.time_last_log}, step)
        self.losses_since_last_log.clear()
        self.time_last_log = time.perf_counter()


def train_step(model, optimizer, micro_batches):
    optimizer.zero_grad(set_to_none=True)
    accumulated = 0.0
    for tokens in micro_batches:
        inputs, labels = tokens[:, :-1], tokens[:, 1:]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(inputs)
            loss = F.cross_entropy(logits.float().flatten(0, 1), labels.flatten()) / len(micro_batches)
        loss.backward()
        accumulated = accumulated + loss
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return accumulated


def train(steps, log_freq=100):
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    metrics = MetricsProcessor(WandbLikeRun(), log_freq)
    for step, micro_batches in enumerate(make_batches(steps), start=1):
        loss = train_step(model, optimizer, micro_batches)
        metrics.losses_since_last_log.append(loss)  # TLK102
        if metrics.should_log(step):
            metrics.log(step)
    return model, metrics


def run(steps):
    return train(steps)


if __name__ == "__main__":
    _, m = run(30)
    print(len(m.losses_since_last_log), m.backend.rows[-1])
