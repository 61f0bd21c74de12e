# Source: https://github.com/karpathy/nanoGPT/blob/master/model.py
# Shape: a generate method decorated with @torch.no_grad() that appends each step's logits and grows the index with torch.cat: nothing is attached to a graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPT(nn.Module):
    def __init__(self, vocab_size=50304, block_size=256, n_embd=384):
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(n_embd, 6, batch_first=True), 4)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        return self.lm_head(self.body(self.tok(idx)))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        history = []
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits = self(idx_cond)[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("inf")
            history.append(logits)
            idx_next = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx, history
