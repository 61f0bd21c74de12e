# Source: https://github.com/gentaiscool/end2end-asr-pytorch/pull/41
# Shape: an attention seq2seq recognizer trained with teacher forcing greedy-decodes each batch in an evaluate() pass without no_grad and stores the attention maps in a dict keyed by step for later plotting.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

N_TOK, SOS = 10, 0


class Listener(nn.Module):
    def __init__(self, feat=8, hid=16):
        super().__init__()
        self.rnn = nn.GRU(feat, hid, batch_first=True)

    def forward(self, x):
        out, h = self.rnn(x)
        return out, h[0]


class AttnSpeller(nn.Module):
    def __init__(self, hid=16):
        super().__init__()
        self.emb = nn.Embedding(N_TOK, hid)
        self.cell = nn.GRUCell(2 * hid, hid)
        self.proj = nn.Linear(2 * hid, N_TOK)

    def step(self, tok, h, enc):
        scores = torch.bmm(enc, h.unsqueeze(2)).squeeze(2)
        attn = F.softmax(scores, dim=1)
        ctx = torch.bmm(attn.unsqueeze(1), enc).squeeze(1)
        h = self.cell(torch.cat([self.emb(tok), ctx], 1), h)
        return self.proj(torch.cat([h, ctx], 1)), h, attn


class ASRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc, self.dec = Listener(), AttnSpeller()

    def forward(self, feats, targets=None, max_len=5):
        enc, h = self.enc(feats)
        tok = torch.full((feats.size(0),), SOS, dtype=torch.long)
        logits, attns = [], []
        steps = targets.size(1) if targets is not None else max_len
        for t in range(steps):
            out, h, a = self.dec.step(tok, h, enc)
            logits.append(out)
            attns.append(a)
            tok = targets[:, t] if targets is not None else out.argmax(1)
        return torch.stack(logits, 1), torch.stack(attns, 1)


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(3, 7, 8, generator=g), torch.randint(1, N_TOK, (3, 5), generator=g)) for _ in range(n)]


class Runner:
    def __init__(self):
        self.model = ASRModel()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.attention_plots = {}

    def train_step(self, feats, tgt):
        self.model.train()
        logits, _ = self.model(feats, tgt)
        loss = F.cross_entropy(logits.reshape(-1, N_TOK), tgt.reshape(-1))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def evaluate(self, feats, tgt, step):
        self.model.eval()
        logits, attn = self.model(feats)
        hyp = logits.argmax(-1)
        self.attention_plots[step] = attn  # TLK102
        return (hyp == tgt).float().mean().item()


def run(batches):
    runner = Runner()
    for step, (feats, tgt) in enumerate(batches):
        runner.train_step(feats, tgt)
        acc = runner.evaluate(feats, tgt, step)
    print("last token acc", acc, "plots", len(runner.attention_plots))


if __name__ == "__main__":
    run(make_batches())
