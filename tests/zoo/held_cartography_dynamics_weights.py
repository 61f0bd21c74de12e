# Source: https://github.com/allenai/cartography/blob/main/cartography/classification/run_glue.py
# Shape: the per-example training-dynamics log keeps, keyed by guid, the gold-label probability sliced from the attached softmax of every batch; the hardness weights read it back with .item(), but the stored slices hold each batch's classifier graph for the rest of training.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 50
NUM_LABELS = 3
N_EXAMPLES = 48
SEQ_LEN = 10
BATCH = 8


class BagOfWordsClassifier(nn.Module):
    def __init__(self, vocab=VOCAB, dim=24, num_labels=NUM_LABELS):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, num_labels))

    def forward(self, input_ids):
        return self.mlp(self.embed(input_ids))


class TrainingDynamics:
    """Keeps per-example gold-label probabilities across epochs (confidence / variability)."""

    def __init__(self):
        self.gold_probs = defaultdict(list)

    def record(self, guids, logits, labels):
        probs = F.softmax(logits, dim=-1)
        gold = probs.gather(1, labels.unsqueeze(1)).squeeze(1)
        for guid, p in zip(guids.tolist(), gold):
            self.gold_probs[guid].append(p)  # TLK102

    def confidence(self, guid):
        history = self.gold_probs.get(guid)
        if not history:
            return 0.5
        return torch.stack(history).mean().item()

    def hardness_weights(self, guids):
        # up-weight hard-to-learn / ambiguous examples (low mean gold probability)
        return torch.tensor([1.5 - self.confidence(g) for g in guids.tolist()])


def make_dataset(seed=0):
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(0, VOCAB, (N_EXAMPLES, SEQ_LEN), generator=g)
    labels = (input_ids[:, :3].sum(1) % NUM_LABELS)
    noisy = torch.rand(N_EXAMPLES, generator=g) < 0.15
    labels = torch.where(noisy, (labels + 1) % NUM_LABELS, labels)
    return input_ids, labels


def make_batches(n):
    input_ids, labels = make_dataset()
    g = torch.Generator().manual_seed(99)
    batches = []
    perm = torch.randperm(N_EXAMPLES, generator=g)
    pos = 0
    for _ in range(n):
        if pos + BATCH > N_EXAMPLES:
            perm = torch.randperm(N_EXAMPLES, generator=g)
            pos = 0
        guids = perm[pos:pos + BATCH]
        pos += BATCH
        batches.append({"guid": guids, "input_ids": input_ids[guids], "labels": labels[guids]})
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    model = BagOfWordsClassifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    dynamics = TrainingDynamics()
    tr_loss = 0.0
    for step, batch in enumerate(batches):
        model.train()
        logits = model(batch["input_ids"])
        per_example = F.cross_entropy(logits, batch["labels"], reduction="none")
        weights = dynamics.hardness_weights(batch["guid"])
        loss = (weights * per_example).mean()

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        tr_loss += loss.item()

        # Keep track of training dynamics.
        dynamics.record(batch["guid"], logits, batch["labels"])
        if probe is not None:
            probe()
    return {"avg_loss": tr_loss / len(batches), "tracked_examples": len(dynamics.gold_probs)}


if __name__ == "__main__":
    print(run(make_batches(5)))
