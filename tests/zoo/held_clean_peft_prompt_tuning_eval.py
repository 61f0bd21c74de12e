# Source: https://github.com/huggingface/peft/blob/main/examples/sequence_classification/peft_no_lora_accelerate.py
# Shape: prompt-tuning loop in the PEFT example style: the training loss is only backwarded, and evaluation runs under torch.no_grad() while predictions/references are collected into a metric buffer for the whole epoch.
# Verdict: clean
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 100
SEQ = 12
N_EX = 64


class PromptEncoder(nn.Module):
    def __init__(self, num_virtual_tokens=8, token_dim=32, encoder_hidden_size=64):
        super().__init__()
        self.embedding = nn.Embedding(num_virtual_tokens, token_dim)
        self.mlp_head = nn.Sequential(nn.Linear(token_dim, encoder_hidden_size), nn.ReLU(),
                                      nn.Linear(encoder_hidden_size, token_dim))
        self.register_buffer("indices", torch.arange(num_virtual_tokens))

    def forward(self, batch_size):
        return self.mlp_head(self.embedding(self.indices)).unsqueeze(0).expand(batch_size, -1, -1)


class PeftModelForSequenceClassification(nn.Module):
    def __init__(self, hidden=32, num_labels=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, 2, 64, dropout=0.0, batch_first=True)
        self.classifier = nn.Linear(hidden, num_labels)
        for p in list(self.word_embeddings.parameters()) + list(self.encoder.parameters()):
            p.requires_grad_(False)
        self.prompt_encoder = PromptEncoder(token_dim=hidden)

    def forward(self, input_ids, labels=None):
        inputs_embeds = self.word_embeddings(input_ids)
        prompts = self.prompt_encoder(input_ids.size(0))
        h = self.encoder(torch.cat([prompts, inputs_embeds], dim=1))
        logits = self.classifier(h[:, 0])
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


class GlueMetric:
    def __init__(self):
        self.predictions, self.references = [], []

    def add_batch(self, predictions, references):
        # like `evaluate`, the batch is converted to plain Python values before it is buffered
        self.predictions.extend(predictions.tolist())
        self.references.extend(references.tolist())

    def compute(self):
        correct = sum(int(p == r) for p, r in zip(self.predictions, self.references))
        return {"accuracy": correct / len(self.references)}


def make_batches(n):
    rng = random.Random(0)
    return [rng.sample(range(N_EX), 8) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(23)
    input_ids = torch.randint(0, VOCAB, (N_EX, SEQ), generator=g)
    labels = torch.randint(0, 2, (N_EX,), generator=g)
    model = PeftModelForSequenceClassification()
    optimizer = torch.optim.AdamW(params=[p for p in model.parameters() if p.requires_grad], lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.1, total_iters=len(batches))

    model.train()
    for step, idx in enumerate(batches):
        outputs = model(input_ids[idx], labels=labels[idx])
        loss = outputs["loss"]
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()

    model.eval()
    metric = GlueMetric()
    for step, idx in enumerate(batches):
        with torch.no_grad():
            outputs = model(input_ids[idx])
        predictions = outputs["logits"].argmax(dim=-1)
        metric.add_batch(predictions=predictions, references=labels[idx])
    return metric.compute()
