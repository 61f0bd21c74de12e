# Source: https://github.com/huggingface/transformers/pull/6999
# Shape: the trainer keeps a tr_loss tensor across micro-batches, but adds loss.detach(), so it carries no graph.
# Verdict: clean
"""Accelerate-like stand-in with AMP (CPU bfloat16 autocast + GradScaler) and gradient accumulation."""
import contextlib
import torch
import torch.nn as nn
import torch.nn.functional as F

IN, HID, OUT, BATCH, ACCUM = 10, 32, 4, 8, 2


class MiniAccelerator:
    """Plain stand-in for the pieces of an accelerate.Accelerator a script touches."""

    def __init__(self, gradient_accumulation_steps=1, mixed_precision="bf16"):
        self.grad_accum = gradient_accumulation_steps
        self.use_amp = mixed_precision == "bf16"
        self.scaler = torch.amp.GradScaler("cpu", enabled=self.use_amp)
        self.step_count = 0

    def prepare(self, *objs):
        return objs

    def autocast(self):
        if self.use_amp:
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    @property
    def sync_gradients(self):
        return (self.step_count + 1) % self.grad_accum == 0

    def backward(self, loss):
        self.scaler.scale(loss / self.grad_accum).backward()

    def optimizer_step(self, optimizer):
        if self.sync_gradients:
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(
                [p for g in optimizer.param_groups for p in g["params"]], 1.0)
            self.scaler.step(optimizer)
            self.scaler.update()
            optimizer.zero_grad(set_to_none=True)
        self.step_count += 1


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(IN, HID), nn.GELU(), nn.Linear(HID, OUT))

    def forward(self, x):
        return self.net(x)


def make_batches(n):
    g = torch.Generator().manual_seed(3)
    return [(torch.randn(BATCH, IN, generator=g), torch.randint(0, OUT, (BATCH,), generator=g))
            for _ in range(n)]


def training_step(model, batch, accelerator):
    x, y = batch
    with accelerator.autocast():
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
    accelerator.backward(loss)
    return loss


def run(batches):
    torch.manual_seed(0)
    accelerator = MiniAccelerator(gradient_accumulation_steps=ACCUM)
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    tr_loss = torch.tensor(0.0)
    logged = []
    for step, batch in enumerate(batches):
        loss = training_step(model, batch, accelerator)
        tr_loss += loss.detach()
        accelerator.optimizer_step(optimizer)
        if (step + 1) % 10 == 0:
            logged.append(round(tr_loss.item() / (step + 1), 4))
    return logged


if __name__ == "__main__":
    print(run(make_batches(20)))
