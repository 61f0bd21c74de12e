# Source: https://github.com/huggingface/sentence-transformers/pull/296
# Shape: Fixed as in the PR: encode() detaches the pooled embeddings before extending all_embeddings (and runs the forward under no_grad), so the cross-batch memory stores constants; the training loss still uses attached embeddings from model(features).
# Verdict: clean
"""Bi-encoder fine-tuning in the sentence-transformers style: a SentenceTransformer
(nn.Sequential of WordEmbeddings -> Pooling -> Dense), encode() with batching and
convert_to_tensor, fit() driving a MultipleNegativesRankingLoss whose extra
negatives come from a CrossBatchMemory filled through model.encode(), and an
EmbeddingSimilarityEvaluator callback.  Synthetic paraphrase pairs on CPU."""
from collections import deque
from typing import Iterable, List

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 64


def tokenize(texts: List[str], max_len=8):
    ids = torch.zeros(len(texts), max_len, dtype=torch.long)
    mask = torch.zeros(len(texts), max_len)
    for i, t in enumerate(texts):
        toks = [(hash(w) % (VOCAB - 1)) + 1 for w in t.split()][:max_len]
        ids[i, :len(toks)] = torch.tensor(toks)
        mask[i, :len(toks)] = 1
    return {"input_ids": ids, "attention_mask": mask}


class WordEmbeddings(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.mix = nn.Linear(dim, dim)

    def forward(self, features):
        features["token_embeddings"] = torch.tanh(self.mix(self.emb(features["input_ids"])))
        return features


class Pooling(nn.Module):
    def forward(self, features):
        m = features["attention_mask"].unsqueeze(-1)
        features["sentence_embedding"] = (features["token_embeddings"] * m).sum(1) / m.sum(1).clamp(min=1)
        return features


class Dense(nn.Module):
    def __init__(self, dim=32, out=24):
        super().__init__()
        self.linear = nn.Linear(dim, out)

    def forward(self, features):
        features["sentence_embedding"] = torch.tanh(self.linear(features["sentence_embedding"]))
        return features


class SentenceTransformer(nn.Sequential):
    def encode(self, sentences: List[str], batch_size: int = 8, output_value: str = "sentence_embedding",
               convert_to_numpy: bool = False, convert_to_tensor: bool = True):
        all_embeddings = []
        for start_idx in range(0, len(sentences), batch_size):
            sentences_batch = sentences[start_idx:start_idx + batch_size]
            features = tokenize(sentences_batch)
            with torch.no_grad():
                out_features = self.forward(features)
                embeddings = out_features[output_value]
                embeddings = embeddings.detach()
            all_embeddings.extend(embeddings)
        if convert_to_tensor:
            all_embeddings = torch.stack(all_embeddings)
        elif convert_to_numpy:
            all_embeddings = [emb.numpy() for emb in all_embeddings]
        return all_embeddings


class CrossBatchMemory:
    """FIFO of past embeddings used as additional negatives (XBM-style)."""

    def __init__(self, size=256):
        self.feats = deque(maxlen=size)

    def enqueue(self, embeddings: torch.Tensor):
        for e in embeddings:
            self.feats.append(e)

    def negatives(self):
        return torch.stack(list(self.feats)) if self.feats else None


class MultipleNegativesRankingLoss(nn.Module):
    def __init__(self, model: SentenceTransformer, memory: CrossBatchMemory = None, scale=20.0):
        super().__init__()
        self.model, self.memory, self.scale = model, memory, scale

    def forward(self, sentence_features: Iterable[dict], labels=None):
        reps = [self.model(f)["sentence_embedding"] for f in sentence_features]
        anchors, positives = reps[0], reps[1]
        candidates = positives
        if self.memory is not None and self.memory.negatives() is not None:
            # memory entries are constants (no gradient into past batches), XBM-style
            candidates = torch.cat([positives, self.memory.negatives().detach()])
        scores = F.normalize(anchors, dim=-1) @ F.normalize(candidates, dim=-1).t() * self.scale
        return F.cross_entropy(scores, torch.arange(len(anchors)))


class EmbeddingSimilarityEvaluator:
    def __init__(self, sentences1, sentences2, scores):
        self.sentences1, self.sentences2, self.scores = sentences1, sentences2, scores

    def __call__(self, model, epoch=-1, steps=-1):
        with torch.no_grad():
            e1 = model.encode(self.sentences1, convert_to_tensor=True)
            e2 = model.encode(self.sentences2, convert_to_tensor=True)
        cos = F.cosine_similarity(e1, e2)
        gold = torch.tensor(self.scores)
        return float(torch.corrcoef(torch.stack([cos, gold]))[0, 1])


def fit(model, train_objectives, evaluator, steps_per_epoch, evaluation_steps, memory_texts):
    dataloader, loss_model = train_objectives[0]
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", patience=2)
    history = {"loss": [], "eval": []}
    for step, (anchors, positives) in enumerate(dataloader[:steps_per_epoch]):
        features = [tokenize(anchors), tokenize(positives)]
        loss_value = loss_model(features)
        optimizer.zero_grad()
        loss_value.backward()
        optimizer.step()
        history["loss"].append(loss_value.item())
        # refresh the cross-batch memory with embeddings of a held-out pool
        if loss_model.memory is not None:
            pool = memory_texts[step % len(memory_texts)]
            loss_model.memory.enqueue(model.encode(pool, convert_to_tensor=True))
        if evaluator is not None and (step + 1) % evaluation_steps == 0:
            score = evaluator(model, steps=step)
            history["eval"].append(score)
            scheduler.step(score)
    return history


def _sentence(g, length=5):
    return " ".join("w%d" % int(i) for i in torch.randint(0, 40, (length,), generator=g))


def make_batches(n, batch=8):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        anchors = [_sentence(g) for _ in range(batch)]
        positives = [a + " w%d" % int(torch.randint(0, 40, (1,), generator=g)) for a in anchors]
        batches.append((anchors, positives))
    return batches


def run(steps):
    torch.manual_seed(0)
    model = SentenceTransformer(WordEmbeddings(), Pooling(), Dense())
    memory = CrossBatchMemory(size=512)
    train_loss = MultipleNegativesRankingLoss(model, memory)
    dev = make_batches(1, batch=16)[0]
    evaluator = EmbeddingSimilarityEvaluator(dev[0], dev[1], [1.0] * 8 + [0.5] * 8)
    memory_texts = [b[0] for b in make_batches(4)]
    history = fit(model, [(make_batches(steps), train_loss)], evaluator, steps_per_epoch=steps,
                  evaluation_steps=5, memory_texts=memory_texts)
    return model, memory, history


if __name__ == "__main__":
    run(10)
