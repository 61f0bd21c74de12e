# Source: https://github.com/karpathy/minGPT/blob/master/mingpt/trainer.py
# Shape: an on_batch_end callback (a closure over a history list) records trainer.loss and a fresh validation loss computed with grad enabled as tensors; every iteration's training graph nodes and the full validation graph stay reachable from the history list.
# Verdict: leak
import math
from collections import defaultdict

import torch
import torch.nn as nn
from torch.nn import functional as F


class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class KVCache:
    """Per-layer key/value cache used by generate()."""

    def __init__(self, n_layer):
        self.k = [None] * n_layer
        self.v = [None] * n_layer

    def update(self, layer, k, v):
        if self.k[layer] is not None:
            k = torch.cat([self.k[layer], k], dim=2)
            v = torch.cat([self.v[layer], v], dim=2)
        self.k[layer], self.v[layer] = k, v
        return k, v

    @property
    def length(self):
        return 0 if self.k[0] is None else self.k[0].size(2)


class CausalSelfAttention(nn.Module):
    def __init__(self, config, layer):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.n_head, self.n_embd, self.layer = config.n_head, config.n_embd, layer

    def forward(self, x, cache=None):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if cache is not None:
            k, v = cache.update(self.layer, k, v)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None or T > 1)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, config, layer):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(config.n_embd), nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config, layer)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd), nn.GELU(), nn.Linear(4 * config.n_embd, config.n_embd))

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln_1(x), cache)
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.h = nn.ModuleList([Block(config, i) for i in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.n_layer = config.n_layer

    def forward(self, idx, targets=None, cache=None):
        t = idx.size(1)
        start = 0 if cache is None else cache.length
        pos = torch.arange(start, start + t, dtype=torch.long).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x, cache)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0):
        cache = KVCache(self.n_layer)
        logits, _ = self(idx, cache=cache)
        for _ in range(max_new_tokens):
            probs = F.softmax(logits[:, -1, :] / temperature, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
            if cache.length >= self.block_size:
                break
            logits, _ = self(idx_next, cache=cache)
        return idx


class Trainer:
    def __init__(self, config, model, train_dataset):
        self.config, self.model, self.train_dataset = config, model, train_dataset
        self.callbacks = defaultdict(list)
        self.iter_num = 0

    def add_callback(self, onevent, callback):
        self.callbacks[onevent].append(callback)

    def trigger_callbacks(self, onevent):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self):
        model, config = self.model, self.config
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, betas=config.betas)
        model.train()
        while True:
            x, y = self.train_dataset[self.iter_num % len(self.train_dataset)]
            logits, self.loss = model(x, y)
            model.zero_grad(set_to_none=True)
            self.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
            self.optimizer.step()
            self.trigger_callbacks("on_batch_end")
            self.iter_num += 1
            if config.max_iters is not None and self.iter_num >= config.max_iters:
                break


def make_batches(n, vocab_size=32, block_size=16, batch_size=4, seed=3407):
    torch.manual_seed(seed)
    data = torch.randint(0, vocab_size, (n, batch_size, block_size + 1))
    return [(d[:, :-1], d[:, 1:]) for d in data]


def make_history_callback(model, val_batch, history, sample_every=10):
    def batch_end_callback(trainer):
        x_val, y_val = val_batch
        _, val_loss = model(x_val, y_val)
        history.append({"iter": trainer.iter_num, "train_loss": trainer.loss, "val_loss": val_loss})  # TLK102
        if trainer.iter_num % sample_every == 0:
            model.eval()
            sample = model.generate(x_val[:1, :4], max_new_tokens=8)
            history[-1]["sample"] = sample[0].tolist()
            model.train()
    return batch_end_callback


def run(steps):
    torch.manual_seed(3407)
    mconf = CfgNode(vocab_size=32, block_size=16, n_layer=2, n_head=2, n_embd=32)
    tconf = CfgNode(learning_rate=5e-4, betas=(0.9, 0.95), grad_norm_clip=1.0, max_iters=steps)
    model = GPT(mconf)
    train_dataset = make_batches(8)
    val_batch = make_batches(1, seed=1)[0]
    history = []
    trainer = Trainer(tconf, model, train_dataset)
    trainer.add_callback("on_batch_end", make_history_callback(model, val_batch, history))
    trainer.run()
    return trainer, history


if __name__ == "__main__":
    run(10)
