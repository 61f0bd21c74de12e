# Source: https://github.com/openai/parameter-golf/pull/873
# Shape: MetaTTTTrainer._log_inner_stats keeps the norm of the inner-loop MLP gradients, which come from torch.autograd.grad(..., create_graph=True), in self.ttt_stats without .detach(), so every meta step's double-backward graph over the inner chunk stays alive.
# Verdict: leak
import math
from collections import defaultdict
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Hyperparameters:
    vocab_size: int = 64
    model_dim: int = 32
    mlp_mult: int = 2
    num_heads: int = 4
    seq_len: int = 32
    batch_size: int = 4
    lr: float = 3e-3
    ttt_inner_lr: float = 0.1
    ttt_inner_steps: int = 2
    meta_start_frac: float = 0.0
    grad_clip_norm: float = 1.0


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_mult):
        super().__init__()
        self.attn_norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.mlp_norm = nn.LayerNorm(dim)
        self.fc = nn.Parameter(torch.randn(dim * mlp_mult, dim) / math.sqrt(dim))
        self.proj = nn.Parameter(torch.zeros(dim, dim * mlp_mult))

    def mlp(self, x, weights=None):
        fc, proj = weights if weights is not None else (self.fc, self.proj)
        return F.linear(F.relu(F.linear(x, fc)).square(), proj)

    def forward(self, x, mlp_weights=None):
        seq = x.size(1)
        causal = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
        h = self.attn_norm(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.mlp_norm(x), mlp_weights)


class GPT(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.tok_emb = nn.Embedding(args.vocab_size, args.model_dim)
        self.block = Block(args.model_dim, args.num_heads, args.mlp_mult)
        self.final_norm = nn.LayerNorm(args.model_dim)
        self.lm_head = nn.Linear(args.model_dim, args.vocab_size, bias=False)

    def ttt_params(self):
        return [self.block.fc, self.block.proj]

    def forward(self, input_ids, target_ids, mlp_weights=None):
        x = self.block(self.tok_emb(input_ids), mlp_weights)
        logits = self.lm_head(self.final_norm(x))
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target_ids.reshape(-1))


class MetaTTTTrainer:
    """Outer loop backprops through the inner gradient steps on the MLP weights (E2E TTT)."""

    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.95))
        self.ttt_stats = defaultdict(list)
        self.step = 0

    def inner_adapt(self, x, y):
        fast_weights = list(self.model.ttt_params())
        for _ in range(self.args.ttt_inner_steps):
            inner_loss = self.model(x, y, mlp_weights=fast_weights)
            grads = torch.autograd.grad(inner_loss, fast_weights, create_graph=True)
            self._log_inner_stats(inner_loss, grads)
            fast_weights = [w - self.args.ttt_inner_lr * g for w, g in zip(fast_weights, grads)]
        return fast_weights

    def _log_inner_stats(self, inner_loss, grads):
        grad_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
        self.ttt_stats["inner_loss"].append(inner_loss.item())
        self.ttt_stats["inner_grad_norm"].append(grad_norm)  # TLK301

    def meta_step(self, tokens):
        half = tokens.size(1) // 2
        support, query = tokens[:, :half + 1], tokens[:, half:]
        fast_weights = self.inner_adapt(support[:, :-1], support[:, 1:])
        outer_loss = self.model(query[:, :-1], query[:, 1:], mlp_weights=fast_weights)
        self.optimizer.zero_grad(set_to_none=True)
        outer_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.grad_clip_norm)
        self.optimizer.step()
        self.step += 1
        return outer_loss.item()


def make_batches(n):
    return list(range(n))


def token_stream(seeds, args):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.randint(0, args.vocab_size, (args.batch_size, args.seq_len + 1), generator=g)


def run(batches):
    torch.manual_seed(0)
    args = Hyperparameters()
    model = GPT(args)
    trainer = MetaTTTTrainer(model, args)
    losses = [trainer.meta_step(tokens) for tokens in token_stream(batches, args)]
    return losses, dict(trainer.ttt_stats)


if __name__ == "__main__":
    print(run(make_batches(3))[0])
