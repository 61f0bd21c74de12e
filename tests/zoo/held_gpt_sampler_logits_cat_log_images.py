# Source: https://github.com/thuanz123/enhancing-transformers/issues/7
# Shape: a stage-2 GPT over image codes is trained normally, and every few steps log_images() draws samples with GPT.sample(), a token-by-token loop with a key/value cache that runs outside torch.no_grad(); the cache entries are cloned and detached, but each step's logits are concatenated onto the running logits tensor with torch.cat while still attached, so the loop keeps every decoding step's forward graph (saved activations included) until sampling ends.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_heads, ctx_len):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)
        self.register_buffer("mask", torch.tril(torch.ones(ctx_len, ctx_len)).view(1, 1, ctx_len, ctx_len))

    def forward(self, x, layer_past=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2) for t in (q, k, v))
        present = torch.stack([k, v])
        if layer_past is not None:
            k = torch.cat([layer_past[0], k], dim=-2)
            v = torch.cat([layer_past[1], v], dim=-2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        if layer_past is None:
            att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C)), present


class Block(nn.Module):
    def __init__(self, embed_dim, n_heads, ctx_len):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(embed_dim), nn.LayerNorm(embed_dim)
        self.attn = SelfAttention(embed_dim, n_heads, ctx_len)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, 4 * embed_dim), nn.GELU(), nn.Linear(4 * embed_dim, embed_dim))

    def forward(self, x, layer_past=None):
        a, present = self.attn(self.ln1(x), layer_past)
        x = x + a
        return x + self.mlp(self.ln2(x)), present


class GPT(nn.Module):
    def __init__(self, vocab_cond, vocab_img, embed_dim=128, cond_tokens=4, img_tokens=64, n_heads=4, n_layers=4):
        super().__init__()
        self.img_num_tokens = img_tokens
        self.tok_emb_cond = nn.Embedding(vocab_cond, embed_dim)
        self.tok_emb_code = nn.Embedding(vocab_img, embed_dim)
        self.pos_emb_cond = nn.Parameter(torch.zeros(1, cond_tokens, embed_dim))
        self.pos_emb_code = nn.Parameter(torch.zeros(1, img_tokens, embed_dim))
        self.blocks = nn.ModuleList([Block(embed_dim, n_heads, cond_tokens + img_tokens) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, vocab_img, bias=False)

    def forward(self, codes, conds):
        x = torch.cat([self.tok_emb_cond(conds) + self.pos_emb_cond, self.tok_emb_code(codes) + self.pos_emb_code], dim=1)
        for block in self.blocks:
            x, _ = block(x)
        x = self.ln_f(x)[:, conds.shape[1] - 1:-1]
        return self.head(x)

    def sample_step(self, codes, conds, pos, past):
        if codes is None:
            x = self.tok_emb_cond(conds) + self.pos_emb_cond
        else:
            x = self.tok_emb_code(codes) + self.pos_emb_code[:, pos:pos + 1]
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, None if past is None else past[i])
            presents.append(present)
        return self.head(self.ln_f(x)[:, -1]), presents

    def sample(self, conds, temperature=1.0):
        past = codes = logits = None
        for i in range(self.img_num_tokens):
            codes_ = None if codes is None else codes[:, -1:]
            logits_, presents = self.sample_step(codes_, conds, i - 1, past)
            presents = torch.stack(presents).clone().detach()
            past = presents if past is None else torch.cat([past, presents], dim=-2)
            probs = F.softmax(logits_ / temperature, dim=-1)
            idx = torch.multinomial(probs, num_samples=1).clone().detach()
            codes = idx if codes is None else torch.cat([codes, idx], dim=1)
            logits = logits_.unsqueeze(1) if logits is None else torch.cat([logits, logits_.unsqueeze(1)], dim=1)  # TLK102
        return logits, codes


class CondTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = GPT(vocab_cond=10, vocab_img=512)

    def training_step(self, batch):
        codes, conds = batch
        logits = self.transformer(codes, conds)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), codes.reshape(-1))

    def log_images(self, batch):
        _, conds = batch
        logits, codes = self.transformer.sample(conds)
        return {"samples": codes, "confidence": logits.softmax(-1).amax(-1).mean().item()}


def fit(model, batches, log_every=10):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    logs = []
    for step, batch in enumerate(batches):
        loss = model.training_step(batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % log_every == 0:
            logs.append(model.log_images(batch))
    return logs


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randint(0, 512, (8, 64)), torch.randint(0, 10, (8, 4))) for _ in range(12)]
    print(len(fit(CondTransformer(), batches)))
