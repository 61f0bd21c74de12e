# Source: https://github.com/Lightning-AI/torchmetrics/issues/2492
# Shape: the custom Metric keeps a list state and update() appends the per-batch loss tensor as given; the training loop passes the attached loss, so the list (only reset at eval time) holds every step's graph.
# Verdict: leak
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Metric(nn.Module):
    """Minimal torchmetrics-style base: named states with defaults, update/compute/reset."""

    def __init__(self):
        super().__init__()
        self._defaults = {}

    def add_state(self, name, default, dist_reduce_fx=None):
        self._defaults[name] = default
        setattr(self, name, list(default) if isinstance(default, list) else default.clone())

    def reset(self):
        for attr, default in self._defaults.items():
            if isinstance(default, list):
                getattr(self, attr).clear()
            else:
                setattr(self, attr, default.clone())


class RunningMeanLoss(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("values", default=[], dist_reduce_fx="cat")
        self.add_state("weights", default=[], dist_reduce_fx="cat")

    def update(self, value, weight=1.0):
        self.values.append(value)  # TLK102
        self.weights.append(float(weight))

    def compute(self):
        values = torch.stack([torch.as_tensor(v, dtype=torch.float32) for v in self.values])
        weights = torch.tensor(self.weights)
        return (values * weights).sum() / weights.sum()


class LoraLinear(nn.Module):
    def __init__(self, base_layer, r=8, lora_alpha=16):
        super().__init__()
        self.base_layer = base_layer
        self.lora_A = nn.Parameter(torch.empty(r, base_layer.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base_layer.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = lora_alpha / r

    def forward(self, x):
        return self.base_layer(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class TinySeqClassifier(nn.Module):
    def __init__(self, vocab_size=1000, d_model=128, num_labels=6):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, d_model)
        self.query = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.classifier = nn.Linear(d_model, num_labels)

    def forward(self, input_ids, attention_mask):
        h = self.embeddings(input_ids)
        scores = self.query(h) @ h.transpose(1, 2) / math.sqrt(h.shape[-1])
        scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
        h = h + scores.softmax(-1) @ self.value(h)
        h = h + self.ffn(h)
        pooled = (h * attention_mask.unsqueeze(-1)).sum(1) / attention_mask.sum(1, keepdim=True)
        return self.classifier(pooled)


def apply_lora(model, target_modules=("query", "value")):
    for p in model.parameters():
        p.requires_grad_(False)
    for name in target_modules:
        setattr(model, name, LoraLinear(getattr(model, name)))
    for p in model.classifier.parameters():
        p.requires_grad_(True)
    return model


def evaluate(model, eval_batches):
    model.eval()
    correct = 0
    with torch.no_grad():
        for batch in eval_batches:
            logits = model(batch["input_ids"], batch["attention_mask"])
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
    model.train()
    return correct / sum(len(b["labels"]) for b in eval_batches)


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        input_ids = torch.randint(0, 1000, (16, 40), generator=g)
        attention_mask = torch.ones(16, 40, dtype=torch.long)
        attention_mask[:, 30:] = 0
        batches.append({"input_ids": input_ids, "attention_mask": attention_mask, "labels": torch.randint(0, 6, (16,), generator=g)})
    return batches


def run(batches, eval_steps=200):
    torch.manual_seed(0)
    model = apply_lora(TinySeqClassifier())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    train_loss = RunningMeanLoss()
    history = []
    model.train()
    for step, batch in enumerate(batches, start=1):
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        train_loss.update(loss, weight=batch["labels"].numel())
        if step % eval_steps == 0:
            history.append((step, train_loss.compute().item(), evaluate(model, batches[:2])))
            train_loss.reset()
    return float(train_loss.compute())


if __name__ == "__main__":
    print(run(make_batches(5)))
