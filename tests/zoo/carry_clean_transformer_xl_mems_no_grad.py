# Source: https://github.com/kimiyoung/transformer-xl/issues/49
# Shape: the segment-level memory (mems) is carried from one training segment to the next and into the sampling loop, but MemTransformerLM._update_mems builds it under torch.no_grad() (and detaches it), so each segment's backward stops at the memory and needs no retain_graph.
# Verdict: clean
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Args:
    n_token: int = 80
    n_layer: int = 2
    n_head: int = 4
    d_model: int = 48
    d_inner: int = 96
    tgt_len: int = 16
    mem_len: int = 16
    ext_len: int = 0
    batch_size: int = 4
    lr: float = 2.5e-4
    clip: float = 0.25
    log_interval: int = 200


class DecoderLayer(nn.Module):
    def __init__(self, n_head, d_model, d_inner):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_inner), nn.ReLU(), nn.Linear(d_inner, d_model))
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, dec_inp, mems=None):
        cat = dec_inp if mems is None or mems.numel() == 0 else torch.cat([mems, dec_inp], dim=0)
        qlen, klen = dec_inp.size(0), cat.size(0)
        attn_mask = torch.triu(torch.ones(qlen, klen, dtype=torch.bool), diagonal=1 + klen - qlen)
        out, _ = self.attn(dec_inp, cat, cat, attn_mask=attn_mask, need_weights=False)
        h = self.norm1(dec_inp + out)
        return self.norm2(h + self.ff(h))


class MemTransformerLM(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_layer = args.n_layer
        self.mem_len = args.mem_len
        self.ext_len = args.ext_len
        self.word_emb = nn.Embedding(args.n_token, args.d_model)
        self.pos_emb = nn.Embedding(args.tgt_len + args.mem_len, args.d_model)
        self.layers = nn.ModuleList([DecoderLayer(args.n_head, args.d_model, args.d_inner) for _ in range(args.n_layer)])
        self.out_layer = nn.Linear(args.d_model, args.n_token)

    def init_mems(self):
        if self.mem_len > 0:
            return [torch.empty(0) for _ in range(self.n_layer + 1)]
        return None

    def _update_mems(self, hids, mems, qlen, mlen):
        if mems is None:
            return None
        with torch.no_grad():
            new_mems = []
            end_idx = mlen + max(0, qlen - 0 - self.ext_len)
            beg_idx = max(0, end_idx - self.mem_len)
            for i in range(len(hids)):
                cat = hids[i] if mems[i].numel() == 0 else torch.cat([mems[i], hids[i]], dim=0)
                new_mems.append(cat[beg_idx:end_idx].detach())
        return new_mems

    def _forward(self, dec_inp, mems=None):
        qlen = dec_inp.size(0)
        mlen = mems[0].size(0) if mems is not None and mems[0].numel() > 0 else 0
        pos = torch.arange(mlen, mlen + qlen).clamp(max=self.pos_emb.num_embeddings - 1)
        core_out = self.word_emb(dec_inp) * math.sqrt(self.word_emb.embedding_dim) + self.pos_emb(pos)[:, None]
        hids = [core_out]
        for i, layer in enumerate(self.layers):
            core_out = layer(core_out, mems[i] if mems is not None else None)
            hids.append(core_out)
        new_mems = self._update_mems(hids, mems, qlen, mlen)
        return core_out, new_mems

    def forward(self, data, target, *mems):
        if not mems:
            mems = self.init_mems()
        tgt_len = target.size(0)
        hidden, new_mems = self._forward(data, mems=mems)
        pred_hid = hidden[-tgt_len:]
        logits = self.out_layer(pred_hid)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), target.reshape(-1), reduction="none").view(tgt_len, -1)
        return [loss] + (new_mems or [])

    def forward_generate(self, data, *mems):
        if not mems:
            mems = self.init_mems()
        hidden, new_mems = self._forward(data, mems=mems)
        return [self.out_layer(hidden[-1:])] + (new_mems or [])


@torch.no_grad()
def sample(model, prompt, num_tokens, temperature=1.0, generator=None):
    model.eval()
    mems = tuple()
    seq = prompt
    inp = prompt
    for _ in range(num_tokens):
        ret = model.forward_generate(inp, *mems)
        logits, mems = ret[0], ret[1:]
        probs = F.softmax(logits[-1] / temperature, dim=-1)
        inp = torch.multinomial(probs, 1, generator=generator).transpose(0, 1)
        seq = torch.cat([seq, inp], dim=0)
    model.train()
    return seq


def lm_iterator(seeds, args):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        stream = torch.randint(0, args.n_token, (args.tgt_len + 1, args.batch_size), generator=g)
        yield stream[:-1], stream[1:], args.tgt_len


def train(model, optimizer, tr_iter, args):
    model.train()
    mems = tuple()
    train_loss = 0.0
    log = []
    for batch, (data, target, seq_len) in enumerate(tr_iter):
        model.zero_grad()
        ret = model(data, target, *mems)
        loss, mems = ret[0], ret[1:]
        loss = loss.float().mean().type_as(loss)
        loss.backward()
        train_loss += loss.float().item()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        if (batch + 1) % args.log_interval == 0:
            log.append(train_loss / args.log_interval)
            train_loss = 0.0
    return log, train_loss


def make_batches(n):
    return list(range(n))


def run(batches):
    torch.manual_seed(0)
    args = Args()
    model = MemTransformerLM(args)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    log, train_loss = train(model, optimizer, lm_iterator(batches, args), args)
    g = torch.Generator().manual_seed(123)
    generated = sample(model, torch.randint(0, args.n_token, (4, 1), generator=g), num_tokens=12, generator=g)
    return log, train_loss, generated.squeeze(1).tolist()


if __name__ == "__main__":
    print(run(make_batches(4)))
