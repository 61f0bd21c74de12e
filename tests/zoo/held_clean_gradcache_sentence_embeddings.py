# Source: https://github.com/luyug/GradCache/blob/6b3291ac2cdd28fc43a9a65cae63aed8c2d0551e/src/grad_cache/grad_cache.py
# Shape: GradCache keeps lists of sub-batch representations and a per-step loss list, but the first forward runs under no_grad, build_cache backwards a loss over r.detach().requires_grad_() copies and returns loss.detach(), and each re-forward chunk is backwarded right away through its surrogate dot product, so no encoder graph survives the step.
# Verdict: clean
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F


class RandContext:
    def __init__(self, *tensors):
        self.fwd_cpu_state = torch.get_rng_state()

    def __enter__(self):
        self._fork = torch.random.fork_rng(devices=[])
        self._fork.__enter__()
        torch.set_rng_state(self.fwd_cpu_state)

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._fork.__exit__(exc_type, exc_val, exc_tb)
        self._fork = None


class BiEncoder(nn.Module):
    def __init__(self, vocab_size=200, dim=48):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.layer = nn.TransformerEncoderLayer(dim, 4, dim * 2, dropout=0.1, batch_first=True)
        self.pooler = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask):
        h = self.layer(self.embeddings(input_ids), src_key_padding_mask=attention_mask == 0)
        mask = attention_mask.unsqueeze(-1).float()
        return self.pooler((h * mask).sum(1) / mask.sum(1).clamp(min=1.0))


class SimpleContrastiveLoss:
    def __init__(self, temperature=0.05):
        self.temperature = temperature

    def __call__(self, x, y, target=None, reduction="mean"):
        if target is None:
            target = torch.arange(0, x.size(0))
        logits = F.normalize(x, dim=-1) @ F.normalize(y, dim=-1).transpose(0, 1) / self.temperature
        return F.cross_entropy(logits, target, reduction=reduction)


class GradCache:
    def __init__(self, models, chunk_sizes, loss_fn, fp16=False):
        self.models = models
        self.chunk_sizes = chunk_sizes if isinstance(chunk_sizes, list) else [chunk_sizes] * len(models)
        self.loss_fn = loss_fn
        self.fp16 = fp16

    def split_inputs(self, model_input, chunk_size):
        keys = list(model_input.keys())
        chunked = [model_input[k].split(chunk_size, dim=0) for k in keys]
        return [dict(zip(keys, parts)) for parts in zip(*chunked)]

    def get_input_tensors(self, model_input):
        return list(model_input.values())

    def model_call(self, model, model_input):
        with torch.autocast("cpu", dtype=torch.bfloat16) if self.fp16 else nullcontext():
            return model(**model_input)

    def forward_no_grad(self, model, model_inputs):
        rnd_states, model_reps = [], []
        with torch.no_grad():
            for x in model_inputs:
                rnd_states.append(RandContext(*self.get_input_tensors(x)))
                model_reps.append(self.model_call(model, x))
        return torch.cat(model_reps, dim=0), rnd_states

    def build_cache(self, *reps, **loss_kwargs):
        reps = [r.detach().requires_grad_() for r in reps]
        loss = self.loss_fn(*reps, **loss_kwargs)
        loss.backward()
        cache = [r.grad for r in reps]
        return cache, loss.detach()

    def forward_backward(self, model, model_inputs, cached_gradients, random_states):
        for x, state, gradient in zip(model_inputs, random_states, cached_gradients):
            with state:
                reps = self.model_call(model, x)
            surrogate = torch.dot(reps.float().flatten(), gradient.float().flatten())
            surrogate.backward()

    def cache_step(self, *model_inputs, **loss_kwargs):
        all_reps, all_rnd_states = [], []
        model_inputs = [self.split_inputs(x, chunk_size) for x, chunk_size in zip(model_inputs, self.chunk_sizes)]
        for model, x in zip(self.models, model_inputs):
            model_reps, rnd_states = self.forward_no_grad(model, x)
            all_reps.append(model_reps)
            all_rnd_states.append(rnd_states)
        cache, loss = self.build_cache(*all_reps, **loss_kwargs)
        cache = [c.split(chunk_size) for c, chunk_size in zip(cache, self.chunk_sizes)]
        for model, x, model_cache, rnd_states in zip(self.models, model_inputs, cache, all_rnd_states):
            self.forward_backward(model, x, model_cache, rnd_states)
        return loss


def make_batches(n):
    return list(range(n))


def query_passage_loader(seeds, batch_size=16, seq_len=20, vocab_size=200):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        out = []
        for _ in range(2):
            ids = torch.randint(1, vocab_size, (batch_size, seq_len), generator=g)
            lengths = torch.randint(6, seq_len + 1, (batch_size,), generator=g)
            mask = (torch.arange(seq_len)[None, :] < lengths[:, None]).long()
            out.append({"input_ids": ids * mask, "attention_mask": mask})
        yield out


def run(batches):
    torch.manual_seed(0)
    encoder = BiEncoder()
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    gc = GradCache(models=[encoder, encoder], chunk_sizes=4, loss_fn=SimpleContrastiveLoss())
    loss_history = []
    for queries, passages in query_passage_loader(batches):
        optimizer.zero_grad()
        loss = gc.cache_step(queries, passages)
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
        optimizer.step()
        loss_history.append(loss)
    return torch.stack(loss_history).mean().item()


if __name__ == "__main__":
    print(run(make_batches(4)))
