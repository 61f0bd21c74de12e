# Source: https://github.com/ThilinaRajapakse/BERT_binary_text_classification/issues/15
# Shape: look-alike: micro-batch losses are summed into accumulated_loss across iterations, but the trainer attribute is backwarded and reset every GRADIENT_ACCUMULATION_STEPS batches, so at most one accumulation window of graph is alive (bounded).
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


GRADIENT_ACCUMULATION_STEPS = 4


def make_batches(n, batch_size=8, seq_len=24, vocab=200):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(0, vocab, (batch_size, seq_len), generator=g),
             torch.randint(0, 2, (batch_size,), generator=g)) for _ in range(n)]


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab=200, dim=64, n_labels=2):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.pre = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Dropout(0.1))
        self.out = nn.Linear(dim, n_labels)

    def forward(self, input_ids):
        return self.out(self.pre(self.emb(input_ids)))


class AccumulatingTrainer:
    def __init__(self, model, lr=2e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.accumulated_loss = 0.0
        self.tr_loss = 0.0
        self.global_step = 0

    def training_step(self, step, input_ids, label_ids):
        logits = self.model(input_ids)
        loss = F.cross_entropy(logits, label_ids)
        if GRADIENT_ACCUMULATION_STEPS > 1:
            loss = loss / GRADIENT_ACCUMULATION_STEPS
        self.accumulated_loss = self.accumulated_loss + loss
        if (step + 1) % GRADIENT_ACCUMULATION_STEPS == 0:
            self.accumulated_loss.backward()
            self.tr_loss += self.accumulated_loss.item()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.accumulated_loss = 0.0
            self.global_step += 1

    def train(self, batches):
        self.model.train()
        self.optimizer.zero_grad()
        for step, (input_ids, label_ids) in enumerate(batches):
            self.training_step(step, input_ids, label_ids)
        return self.tr_loss / max(self.global_step, 1)


def run(steps):
    trainer = AccumulatingTrainer(BagOfEmbeddings())
    trainer.train(make_batches(steps))
    return trainer


if __name__ == "__main__":
    t = run(30)
    print(t.global_step, t.tr_loss)
