# Source: https://github.com/huggingface/transformers/issues/13247
# Shape: an accelerate-style MLM script divides each step's loss by the accumulation steps and backwards it through accelerator.backward(), stepping every few batches; its evaluation loop wraps only the model call in torch.no_grad() and then appends accelerator.gather(loss.repeat(batch_size)) to a losses list that is concatenated for the perplexity; the gathered losses were computed without a graph, so the list holds plain values.
# Verdict: clean
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40


@dataclass
class MaskedLMOutput:
    loss: torch.Tensor
    logits: torch.Tensor


class TinyMLM(nn.Module):
    def __init__(self, vocab=200, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=128, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        logits = self.lm_head(self.encoder(self.embed(input_ids)))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        return MaskedLMOutput(loss=loss, logits=logits)


class Accelerator:
    def __init__(self, num_processes=1):
        self.num_processes = num_processes

    def backward(self, loss):
        loss.backward()

    def gather(self, tensor):
        return torch.cat([tensor] * self.num_processes)


def make_batches(n, bs=8, seq=16):
    for _ in range(n):
        ids = torch.randint(0, 200, (bs, seq))
        labels = torch.where(torch.rand(bs, seq) < 0.15, ids, torch.full_like(ids, -100))
        labels[:, 0] = ids[:, 0]
        yield {"input_ids": ids, "labels": labels}


accelerator = Accelerator()
model = TinyMLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
gradient_accumulation_steps = 4
model.train()
for step, batch in enumerate(make_batches(STEPS)):
    outputs = model(**batch)
    loss = outputs.loss / gradient_accumulation_steps
    accelerator.backward(loss)
    if step % gradient_accumulation_steps == 0 or step == STEPS - 1:
        optimizer.step()
        optimizer.zero_grad()

model.eval()
losses = []
eval_batch_size = 8
for step, batch in enumerate(make_batches(STEPS)):
    with torch.no_grad():
        outputs = model(**batch)
    loss = outputs.loss
    losses.append(accelerator.gather(loss.repeat(eval_batch_size)))
losses = torch.cat(losses)
perplexity = math.exp(torch.mean(losses))
print(f"perplexity: {perplexity:.2f}")
