# Source: https://github.com/huggingface/peft/blob/main/examples/causal_language_modeling/peft_lora_clm_accelerate_ds_zero3_offload.py
# Shape: inside the accelerate-style accumulate() loop the epoch loss is summed as `total_loss += loss` with the attached loss, so total_loss (and the perplexity computed from it after the loop) carries the autograd graph of every micro-batch of the epoch.
# Verdict: leak
"""PEFT/accelerate-style causal-LM fine-tuning loop, with small stand-ins for
Accelerator, the LoRA wrapper and the model output dataclass."""
import contextlib
import math
from dataclasses import dataclass
from typing import Iterator, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


# ------------------------------------------------------------ stand-ins ----
@dataclass
class CausalLMOutput:
    loss: Optional[torch.Tensor]
    logits: torch.Tensor


class Accelerator:
    def __init__(self, gradient_accumulation_steps: int = 1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.step = 0
        self.sync_gradients = True
        self.device = torch.device("cpu")
        self.logs = []

    def prepare(self, *objs):
        return objs

    @contextlib.contextmanager
    def accumulate(self, model):
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss, **kwargs):
        (loss / self.gradient_accumulation_steps).backward(**kwargs)

    def gather_for_metrics(self, t):
        return t

    def print(self, *args):
        self.logs.append(" ".join(str(a) for a in args))


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int = 4, alpha: int = 8, dropout: float = 0.05):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(self.dropout(x))) * self.scaling


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=50, d=32, n_heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.q_proj, self.k_proj, self.v_proj = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.o_proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.n_heads = n_heads

    def forward(self, input_ids, attention_mask=None, labels=None):
        h = self.embed(input_ids)
        b, t, d = h.shape
        x = self.ln1(h)
        split = lambda z: z.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)
        att = F.scaled_dot_product_attention(split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x)),
                                             is_causal=True)
        h = h + self.o_proj(att.transpose(1, 2).reshape(b, t, d))
        h = h + self.mlp(self.ln2(h))
        logits = self.lm_head(h)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1),
                                   ignore_index=-100)
        return CausalLMOutput(loss=loss, logits=logits)


def get_peft_model(model, target_modules=("q_proj", "v_proj"), r=4):
    for p in model.parameters():
        p.requires_grad_(False)
    for name in target_modules:
        setattr(model, name, LoraLinear(getattr(model, name), r=r))
    return model


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return step / max(1, num_warmup_steps)
        return max(0.0, (num_training_steps - step) / max(1, num_training_steps - num_warmup_steps))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


# ----------------------------------------------------------------- data ----
def make_batches(n_batches, batch_size=8, seq_len=16, vocab=50):
    g = torch.manual_seed(0)
    out = []
    for _ in range(n_batches):
        start = torch.randint(0, vocab, (batch_size, 1), generator=g)
        ids = (start + torch.arange(seq_len)[None, :] * 3) % vocab      # learnable arithmetic sequences
        labels = ids.clone()
        labels[:, : seq_len // 4] = -100                                  # prompt part is masked
        out.append({"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels})
    return out


def iterate(dataloader, max_steps) -> Iterator[dict]:
    for step, batch in enumerate(dataloader):
        if step >= max_steps:
            return
        yield batch


def evaluate(model, eval_dataloader, accelerator):
    model.eval()
    eval_loss = 0
    with torch.no_grad():
        for batch in eval_dataloader:
            outputs = model(**batch)
            eval_loss += accelerator.gather_for_metrics(outputs.loss.detach().float())
    model.train()
    eval_epoch_loss = eval_loss / len(eval_dataloader)
    return {"eval_loss": eval_epoch_loss.item(), "eval_ppl": math.exp(eval_epoch_loss.item())}


def run(steps):
    torch.manual_seed(0)
    accelerator = Accelerator(gradient_accumulation_steps=2)
    model = get_peft_model(TinyCausalLM())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    train_dataloader, eval_dataloader = make_batches(steps), make_batches(2)
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=steps)
    model, train_dataloader, eval_dataloader, optimizer, lr_scheduler = accelerator.prepare(
        model, train_dataloader, eval_dataloader, optimizer, lr_scheduler)

    state = {"total_loss": 0, "steps": 0}
    model.train()
    total_loss = 0
    for step, batch in enumerate(iterate(train_dataloader, steps)):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            total_loss += loss  # TLK101
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        state["steps"] = step + 1
    train_epoch_loss = total_loss / state["steps"]
    train_ppl = torch.exp(train_epoch_loss)
    accelerator.print(f"{train_ppl=} {train_epoch_loss=}")
    state["total_loss"], state["train_ppl"] = total_loss, train_ppl
    state["eval"] = evaluate(model, eval_dataloader, accelerator)
    return state, model


if __name__ == "__main__":
    run(10)
