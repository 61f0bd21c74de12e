# Source: https://github.com/Liuhong99/Sophia/blob/14bedd6a2ace4fef02dadd228a805374085cd65b/train_sophiag.py
# Shape: the Hutchinson Hessian-trace probe takes first-order gradients with torch.autograd.grad(create_graph=True) and differentiates them again for Hessian-vector products (retain_graph only between samples); no parameter owns an attached .grad, so each probe copy is freed when the call returns.
# Verdict: clean
import copy
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.optim.optimizer import Optimizer


# --------------------------------------------------------------------------- config/train_gpt2_small_sophiag.py (scaled down)
@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 64
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = False


@dataclass
class TrainConfig:
    batch_size: int = 8
    learning_rate: float = 3e-4
    weight_decay: float = 1e-1
    beta1: float = 0.965
    beta2: float = 0.99
    rho: float = 0.05
    hess_interval: int = 5
    probe_interval: int = 2
    grad_clip: float = 1.0
    warmup_iters: int = 5
    lr_decay_iters: int = 100
    min_lr: float = 1.5e-5
    log_interval: int = 1


# --------------------------------------------------------------------------- model.py (nanoGPT, trimmed)
class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias), nn.GELU(),
                                 nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd)))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, rho):
        decay = [p for n, p in self.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in self.named_parameters() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        return SophiaG(groups, lr=learning_rate, betas=betas, rho=rho)


# --------------------------------------------------------------------------- sophia.py (SophiaG)
class SophiaG(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.965, 0.99), rho=0.04, weight_decay=1e-1):
        super().__init__(params, dict(lr=lr, betas=betas, rho=rho, weight_decay=weight_decay))

    @torch.no_grad()
    def update_hessian(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["hessian"] = torch.zeros_like(p)
                state["hessian"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)

    @torch.no_grad()
    def step(self, bs=1):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["hessian"] = torch.zeros_like(p)
                state["step"] += 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                ratio = (state["exp_avg"].abs() / (group["rho"] * bs * state["hessian"] + 1e-15)).clamp(None, 1)
                p.addcmul_(state["exp_avg"].sign(), ratio, value=-group["lr"])


# --------------------------------------------------------------------------- diagnostics
def hutchinson_trace(model, X, Y, n_samples=2):
    """Estimate tr(H) of the training loss on a copy of the model (the live model's .grad stay untouched)."""
    probe = copy.deepcopy(model)
    params = [p for p in probe.parameters() if p.requires_grad]
    _, loss = probe(X, Y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    trace = 0.0
    for i in range(n_samples):
        vs = [torch.randint_like(p, 2) * 2.0 - 1.0 for p in params]
        hvs = torch.autograd.grad(grads, params, grad_outputs=vs, retain_graph=i < n_samples - 1)
        trace += sum((h * v).sum().item() for h, v in zip(hvs, vs))
    return trace / n_samples


# --------------------------------------------------------------------------- data / lr schedule
def make_batches(cfg: GPTConfig, batch_size, seed=0):
    """Endless stream of (X, Y) from a synthetic token stream with a repeating pattern (like get_batch)."""
    g = torch.Generator().manual_seed(seed)
    data = (torch.arange(4096) * 7 + torch.randint(0, 3, (4096,), generator=g)) % cfg.vocab_size
    while True:
        ix = torch.randint(len(data) - cfg.block_size - 1, (batch_size,), generator=g)
        x = torch.stack([data[i:i + cfg.block_size] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + cfg.block_size] for i in ix])
        yield x, y


def get_lr(it, tc: TrainConfig):
    if it < tc.warmup_iters:
        return tc.learning_rate * it / tc.warmup_iters
    if it > tc.lr_decay_iters:
        return tc.min_lr
    decay_ratio = (it - tc.warmup_iters) / (tc.lr_decay_iters - tc.warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return tc.min_lr + coeff * (tc.learning_rate - tc.min_lr)


# --------------------------------------------------------------------------- train_sophiag.py (loop)
def train(model, tc: TrainConfig, max_iters):
    optimizer = model.configure_optimizers(tc.weight_decay, tc.learning_rate, (tc.beta1, tc.beta2), tc.rho)
    batches = make_batches(model.config, tc.batch_size)
    X, Y = next(batches)
    log = []
    hessian_trace = float("nan")
    iter_num = 0
    total_bs = tc.batch_size * model.config.block_size
    while iter_num < max_iters:
        lr = get_lr(iter_num, tc)
        for group in optimizer.param_groups:
            group["lr"] = lr

        logits, loss = model(X, Y)
        X, Y = next(batches)
        loss.backward()
        if tc.grad_clip != 0.0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), tc.grad_clip)
        optimizer.step(bs=total_bs)
        optimizer.zero_grad(set_to_none=True)

        if iter_num % tc.hess_interval == tc.hess_interval - 1:
            # Gauss-Newton-Bartlett estimator: labels sampled from the model itself
            logits, _ = model(X, None)
            samp_dist = torch.distributions.Categorical(logits=logits)
            y_sample = samp_dist.sample()
            loss_sampled = F.cross_entropy(logits.view(-1, logits.size(-1)), y_sample.view(-1), ignore_index=-1)
            loss_sampled.backward()
            optimizer.update_hessian()
            optimizer.zero_grad(set_to_none=True)

        if iter_num % tc.probe_interval == 0:
            hessian_trace = hutchinson_trace(model, X, Y)

        if iter_num % tc.log_interval == 0:
            log.append({"iter": iter_num, "loss": loss.item(), "lr": lr, "hessian_trace": hessian_trace})
        iter_num += 1
    return log


def run(steps):
    torch.manual_seed(0)
    model = GPT(GPTConfig())
    log = train(model, TrainConfig(), steps)
    return {"model": model, "log": log}


if __name__ == "__main__":
    run(10)
