# Source: https://github.com/huggingface/accelerate/issues/2109
# Shape: the epoch loss is tracked as total_loss += loss.detach().float() inside accelerator.accumulate(); the tensor sum is detached, so every micro-batch graph is freed after accelerator.backward().
# Verdict: clean
import contextlib
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


# --- minimal stand-in for huggingface accelerate ------------------------------------------------
class AcceleratedOptimizer:
    def __init__(self, optimizer, accelerator):
        self.optimizer = optimizer
        self.accelerator = accelerator

    def step(self):
        if self.accelerator.sync_gradients:
            self.optimizer.step()

    def zero_grad(self, set_to_none=True):
        if self.accelerator.sync_gradients:
            self.optimizer.zero_grad(set_to_none=set_to_none)

    @property
    def param_groups(self):
        return self.optimizer.param_groups


class AcceleratedScheduler:
    def __init__(self, scheduler, accelerator):
        self.scheduler = scheduler
        self.accelerator = accelerator

    def step(self):
        if self.accelerator.sync_gradients:
            self.scheduler.step()


class Accelerator:
    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.sync_gradients = True
        self._micro_step = 0

    def prepare(self, *objs):
        out = []
        for o in objs:
            if isinstance(o, torch.optim.Optimizer):
                o = AcceleratedOptimizer(o, self)
            elif isinstance(o, torch.optim.lr_scheduler.LRScheduler):
                o = AcceleratedScheduler(o, self)
            out.append(o)
        return tuple(out)

    @contextlib.contextmanager
    def accumulate(self, model):
        self._micro_step += 1
        self.sync_gradients = self._micro_step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss):
        (loss / self.gradient_accumulation_steps).backward()

    def gather_for_metrics(self, tensors):
        return tensors


# --- user script ----------------------------------------------------------------------------------
@dataclass
class SequenceClassifierOutput:
    loss: torch.Tensor
    logits: torch.Tensor


class TinyTextClassifier(nn.Module):
    def __init__(self, vocab_size=500, dim=32, num_labels=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, 64, batch_first=True, dropout=0.1), 1)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=~attention_mask.bool())
        pooled = (h * attention_mask.unsqueeze(-1)).sum(1) / attention_mask.sum(1, keepdim=True)
        logits = self.classifier(pooled)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return SequenceClassifierOutput(loss=loss, logits=logits)


def make_batches(n, batch_size=8, seq_len=12, vocab_size=500):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        ids = torch.randint(1, vocab_size, (batch_size, seq_len), generator=g)
        mask = torch.ones(batch_size, seq_len, dtype=torch.long)
        mask[:, seq_len - 3:] = (torch.rand(batch_size, 3, generator=g) > 0.5).long()
        out.append({"input_ids": ids, "attention_mask": mask, "labels": (ids[:, 0] % 2)})
    return out


def evaluate(model, accelerator, eval_dataloader):
    model.eval()
    correct, total = 0, 0
    for batch in eval_dataloader:
        with torch.no_grad():
            outputs = model(**batch)
        predictions = outputs.logits.argmax(dim=-1)
        predictions, references = accelerator.gather_for_metrics((predictions, batch["labels"]))
        correct += (predictions == references).sum().item()
        total += references.numel()
    return correct / max(total, 1)


def training_function(steps, gradient_accumulation_steps=2):
    accelerator = Accelerator(gradient_accumulation_steps=gradient_accumulation_steps)
    model = TinyTextClassifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    lr_scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.1, total_iters=max(steps // gradient_accumulation_steps, 1))
    train_dataloader, eval_dataloader = make_batches(steps), make_batches(2)
    model, optimizer, lr_scheduler = accelerator.prepare(model, optimizer, lr_scheduler)

    model.train()
    total_loss = 0
    for step, batch in enumerate(train_dataloader):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            total_loss += loss.detach().float()
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
    train_loss = total_loss / len(train_dataloader)
    eval_acc = evaluate(model, accelerator, eval_dataloader)
    return {"model": model, "train_loss": train_loss, "eval_accuracy": eval_acc}


def run(steps):
    torch.manual_seed(0)
    return training_function(steps)


if __name__ == "__main__":
    out = run(6)
    print(out["train_loss"], out["eval_accuracy"])
