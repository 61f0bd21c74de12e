# Source: https://github.com/caikit/caikit-nlp/pull/258
# Shape: the per-step log stores loss.item() (a float) while total_loss accumulates loss.detach().float(), so nothing attached outlives the accumulate block; eval runs under no_grad and gathers detached losses.
# Verdict: clean
from contextlib import contextmanager
from datetime import datetime

import torch
import torch.nn as nn
import torch.nn.functional as F


class _AcceleratedOptimizer:
    def __init__(self, optimizer, accelerator):
        self.optimizer = optimizer
        self.accelerator = accelerator

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    def step(self):
        if self.accelerator.sync_gradients:
            self.optimizer.step()

    def zero_grad(self):
        if self.accelerator.sync_gradients:
            self.optimizer.zero_grad()


class Accelerator:
    """Single-process stand-in with the HuggingFace accelerate API used below."""

    def __init__(self, gradient_accumulation_steps=1, device_placement=True, mixed_precision="no"):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.mixed_precision = mixed_precision
        self.device = torch.device("cpu")
        self.num_processes = 1
        self.sync_gradients = True
        self._step = 0

    def prepare(self, model, optimizer, dataloader, lr_scheduler):
        return model, _AcceleratedOptimizer(optimizer, self), dataloader, lr_scheduler

    @contextmanager
    def accumulate(self, model):
        self._step += 1
        self.sync_gradients = self._step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss, **kwargs):
        loss = loss / self.gradient_accumulation_steps
        loss.backward(**kwargs)

    def gather(self, tensor):
        # one process: gathering concatenates a single shard
        return tensor.reshape(1) if tensor.dim() == 0 else tensor


class PromptTunedLM(nn.Module):
    """Frozen tiny LM + trainable soft prompt (PEFT prompt tuning)."""

    def __init__(self, vocab_size=24, dim=16, num_virtual_tokens=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.body = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab_size)
        for p in self.parameters():
            p.requires_grad_(False)
        self.prompt_embeddings = nn.Parameter(torch.randn(num_virtual_tokens, dim) * 0.1)

    def forward(self, input_ids, labels):
        h = self.embed(input_ids)
        ctx = self.prompt_embeddings.mean(0)
        logits = self.lm_head(torch.tanh(self.body(h + ctx)))
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
        return {"loss": loss, "logits": logits}


def train(model, train_dataloader, eval_dataloader, num_epochs=1, learning_rate=0.3,
          accumulate_steps=1, probe=None):
    optimizer = torch.optim.AdamW([model.prompt_embeddings], lr=learning_rate)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    accelerator = Accelerator(gradient_accumulation_steps=accumulate_steps, device_placement=True,
                              mixed_precision="no")
    model, optimizer, new_train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)

    training_loss_tracker = []
    step_count = 1
    for epoch in range(num_epochs):
        step_loss_log = {}
        model.train()
        total_loss = 0
        for batch in new_train_dataloader:
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs["loss"]
                total_loss += loss.detach().float()
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
                step_loss_log[step_count] = loss.item()
                step_count += 1
            if probe is not None:
                probe(step_count)

        for step, loss_val in step_loss_log.items():
            training_loss_tracker.append({
                "epoch": epoch,
                "step": step,
                "value": float(loss_val),
                "timestamp": datetime.isoformat(datetime.now()),
            })

        if eval_dataloader is not None:
            model.eval()
            eval_loss = 0
            for batch in eval_dataloader:
                with torch.no_grad():
                    outputs = model(**batch)
                eval_loss += accelerator.gather(outputs["loss"].detach().float()).sum()
            eval_epoch_loss = eval_loss / len(eval_dataloader)
            train_epoch_loss = total_loss / len(new_train_dataloader)
            training_loss_tracker.append({"epoch": epoch, "train_ppl": float(torch.exp(train_epoch_loss)),
                                          "eval_ppl": float(torch.exp(eval_epoch_loss))})
    return {"loss": training_loss_tracker}


def _batches(g, n):
    out = []
    for _ in range(n):
        ids = torch.randint(0, 24, (6, 8), generator=g)
        out.append({"input_ids": ids, "labels": (ids + 3) % 24})
    return out


def make_batches(n):
    return _batches(torch.Generator().manual_seed(0), n)


def run(batches, probe=None):
    torch.manual_seed(0)
    model = PromptTunedLM()
    result = train(model, batches, _batches(torch.Generator().manual_seed(1), 2), probe=probe)
    tracker = result["loss"]
    return {"first_step_loss": tracker[0]["value"], "last_step_loss": tracker[-2]["value"],
            "eval_ppl": tracker[-1]["eval_ppl"]}


if __name__ == "__main__":
    print(run(make_batches(5)))
