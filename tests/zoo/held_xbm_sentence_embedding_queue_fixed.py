# Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/421
# Shape: CrossBatchMNRLoss._enqueue writes detached positive sentence embeddings into the fixed-size embedding_memory buffer, so the cross-batch bank holds values only and no encoder graph.
# Verdict: clean
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    vocab_size: int = 200
    embedding_dim: int = 48
    batch_size: int = 8
    max_seq_length: int = 20
    memory_size: int = 64
    scale: float = 20.0
    lr: float = 2e-4
    warmup_steps: int = 10


class MeanPoolingEncoder(nn.Module):
    """Tiny stand-in for a SentenceTransformer: token embeddings -> transformer layer -> mean pooling."""

    def __init__(self, cfg):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.embedding_dim, padding_idx=0)
        self.encoder = nn.TransformerEncoderLayer(cfg.embedding_dim, 4, cfg.embedding_dim * 2, dropout=0.1, batch_first=True)
        self.dense = nn.Linear(cfg.embedding_dim, cfg.embedding_dim)

    def forward(self, features):
        input_ids, attention_mask = features["input_ids"], features["attention_mask"]
        token_embeddings = self.encoder(self.word_embeddings(input_ids), src_key_padding_mask=attention_mask == 0)
        mask = attention_mask.unsqueeze(-1).float()
        sentence_embedding = (token_embeddings * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return {"sentence_embedding": torch.tanh(self.dense(sentence_embedding))}


class CrossBatchMNRLoss(nn.Module):
    """MultipleNegativesRankingLoss whose negatives are extended with a cross-batch memory (XBM)."""

    def __init__(self, model, cfg):
        super().__init__()
        self.model = model
        self.scale = cfg.scale
        self.memory_size = cfg.memory_size
        self.embedding_memory = torch.zeros(cfg.memory_size, cfg.embedding_dim)
        self.queue_idx = 0
        self.has_been_filled = False
        self.cross_entropy_loss = nn.CrossEntropyLoss()

    def _memory_bank(self):
        if self.has_been_filled:
            return self.embedding_memory.detach()
        return self.embedding_memory[:self.queue_idx].detach()

    def _enqueue(self, embeddings):
        batch_size = embeddings.size(0)
        end_idx = (self.queue_idx + batch_size - 1) % self.memory_size + 1
        if end_idx > self.queue_idx:
            self.embedding_memory[self.queue_idx:end_idx] = embeddings.detach()
        else:
            se = self.memory_size - self.queue_idx
            self.embedding_memory[self.queue_idx:] = embeddings[:se].detach()
            self.embedding_memory[:end_idx] = embeddings[se:].detach()
        prev_queue_idx = self.queue_idx
        self.queue_idx = (self.queue_idx + batch_size) % self.memory_size
        if (not self.has_been_filled) and (self.queue_idx <= prev_queue_idx):
            self.has_been_filled = True

    def forward(self, sentence_features):
        reps = [self.model(f)["sentence_embedding"] for f in sentence_features]
        anchors, positives = F.normalize(reps[0], dim=-1), F.normalize(reps[1], dim=-1)
        candidates = torch.cat([positives, self._memory_bank()], dim=0)
        scores = anchors @ candidates.T * self.scale
        labels = torch.arange(anchors.size(0))
        loss = self.cross_entropy_loss(scores, labels)
        self._enqueue(positives)
        return loss


class LossLogger:
    def __init__(self):
        self.history = []

    def __call__(self, step, loss_value):
        self.history.append((step, loss_value))


def make_batches(n):
    return list(range(n))


def pair_loader(seeds, cfg):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        feats = []
        for _ in range(2):
            lengths = torch.randint(5, cfg.max_seq_length + 1, (cfg.batch_size,), generator=g)
            ids = torch.randint(1, cfg.vocab_size, (cfg.batch_size, cfg.max_seq_length), generator=g)
            mask = (torch.arange(cfg.max_seq_length)[None, :] < lengths[:, None]).long()
            feats.append({"input_ids": ids * mask, "attention_mask": mask})
        yield feats


def fit(model, loss_model, loader, cfg, callback):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / cfg.warmup_steps))
    model.train()
    for step, features in enumerate(loader):
        loss_value = loss_model(features)
        optimizer.zero_grad()
        loss_value.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        callback(step, loss_value.item())


def run(batches):
    torch.manual_seed(0)
    cfg = TrainConfig()
    model = MeanPoolingEncoder(cfg)
    loss_model = CrossBatchMNRLoss(model, cfg)
    logger = LossLogger()
    fit(model, loss_model, pair_loader(batches, cfg), cfg, logger)
    return logger.history


if __name__ == "__main__":
    print(run(make_batches(4)))
