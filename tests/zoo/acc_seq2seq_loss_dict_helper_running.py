# Source: https://github.com/jokester-zzz/SSA-SC/issues/2
# Shape: a helper folds every entry of the per-step loss dict into a dict of running sums as tensors (no .item()), so each step's decoder graph stays alive in the dict until the epoch ends.
# Verdict: leak
"""Tiny GRU seq2seq (copy-reverse task) with teacher forcing and a loss dictionary."""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, EMB, HID, SRC_LEN, BATCH = 12, 8, 16, 5, 4
BOS = 0


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.enc = nn.GRU(EMB, HID, batch_first=True)
        self.dec = nn.GRUCell(EMB, HID)
        self.out = nn.Linear(HID, VOCAB)

    def forward(self, src, tgt):
        _, h = self.enc(self.emb(src))
        h = h[0]
        prev = torch.full((src.size(0),), BOS, dtype=torch.long)
        logits = []
        for t in range(tgt.size(1)):
            h = self.dec(self.emb(prev), h)
            logits.append(self.out(h))
            prev = tgt[:, t]  # teacher forcing
        return torch.stack(logits, dim=1)

    @torch.no_grad()
    def greedy(self, src, steps):
        _, h = self.enc(self.emb(src))
        h = h[0]
        prev = torch.full((src.size(0),), BOS, dtype=torch.long)
        toks = []
        for _ in range(steps):
            h = self.dec(self.emb(prev), h)
            prev = self.out(h).argmax(-1)
            toks.append(prev)
        return torch.stack(toks, 1)


def compute_losses(logits, tgt):
    ce = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1))
    probs = logits.softmax(-1)
    entropy = -(probs * probs.clamp_min(1e-8).log()).sum(-1).mean()
    return {"ce": ce, "entropy_reg": 0.01 * entropy}


def update_running(running, parts):
    for name, value in parts.items():
        running[name] = running.get(name, 0.0) + value  # TLK101
    running["steps"] = running.get("steps", 0) + 1


def make_batches(n):
    g = torch.Generator().manual_seed(2)
    out = []
    for _ in range(n):
        src = torch.randint(1, VOCAB, (BATCH, SRC_LEN), generator=g)
        out.append((src, src.flip(1)))
    return out


def run(batches):
    torch.manual_seed(0)
    model = Seq2Seq()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    running = {}
    exact = 0
    for src, tgt in batches:
        opt.zero_grad()
        parts = compute_losses(model(src, tgt), tgt)
        total = sum(parts.values())
        total.backward()
        opt.step()
        update_running(running, parts)
        exact += int((model.greedy(src, tgt.size(1)) == tgt).all(1).sum())
    steps = max(running.get("steps", 1), 1)
    return {k: float(v) / steps for k, v in running.items() if k != "steps"}, exact


if __name__ == "__main__":
    print(run(make_batches(20)))
