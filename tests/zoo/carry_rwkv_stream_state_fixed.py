# Source: https://github.com/huggingface/transformers/issues/26588
# Shape: the recurrent state is detached before it is carried to the next chunk, so each chunk's graph dies with the chunk (no backward in this eval loop).
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeMix(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.decay = nn.Parameter(torch.full((dim,), -0.5))
        self.key = nn.Linear(dim, dim, bias=False)
        self.value = nn.Linear(dim, dim, bias=False)
        self.receptance = nn.Linear(dim, dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, state):
        num, den = state
        w = torch.exp(-torch.exp(self.decay))
        outs = []
        for t in range(x.shape[0]):
            k = torch.exp(self.key(x[t]).clamp(max=10))
            v = self.value(x[t])
            num = w * num + k * v
            den = w * den + k
            outs.append(torch.sigmoid(self.receptance(x[t])) * num / (den + 1e-6))
        return self.out(torch.stack(outs)), (num, den)


class TinyRwkv(nn.Module):
    def __init__(self, vocab=40, dim=16, layers=2):
        super().__init__()
        self.dim = dim
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([TimeMix(dim) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def init_state(self):
        return [(torch.zeros(self.dim), torch.zeros(self.dim)) for _ in self.blocks]

    def forward(self, tokens, state=None):
        state = state if state is not None else self.init_state()
        x = self.emb(tokens)
        new_state = []
        for block, s in zip(self.blocks, state):
            y, s = block(x, s)
            x = x + y
            new_state.append(s)
        return self.head(self.ln(x)), new_state


class StreamScorer:
    def __init__(self, model):
        self.model = model.eval()
        self.total_nll = 0.0
        self.total_tokens = 0

    def score(self, chunks):
        state = None
        for chunk in chunks:
            logits, new_state = self.model(chunk, state)
            nll = F.cross_entropy(logits[:-1], chunk[1:], reduction="sum")
            self.total_nll += nll.item()
            self.total_tokens += chunk.numel() - 1
            state = [(num.detach(), den.detach()) for num, den in new_state]
        return self.total_nll / max(self.total_tokens, 1)


def make_batches(n, chunk=6, vocab=40):
    return [torch.randint(0, vocab, (chunk,)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    StreamScorer(TinyRwkv()).score(batches)
