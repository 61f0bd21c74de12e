# Source: https://github.com/mead-ml/mead-baseline/pull/223
# Shape: seq2seq trainer that greedy-decodes the dev batch for token accuracy inside a no_grad validation step; the accuracy counters add integer (pred == gold) sums and the loss meter stores loss.item().
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

V, HID, L = 30, 32, 8
BOS = 1


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_embed = nn.Embedding(V, HID)
        self.tgt_embed = nn.Embedding(V, HID)
        self.encoder = nn.GRU(HID, HID, batch_first=True)
        self.decoder = nn.GRU(HID, HID, batch_first=True)
        self.proj = nn.Linear(HID, V)

    def forward(self, src, tgt_in):
        _, h = self.encoder(self.src_embed(src))
        return self.proj(self.decoder(self.tgt_embed(tgt_in), h)[0])

    def greedy(self, src, mxlen=L):
        _, h = self.encoder(self.src_embed(src))
        tok = torch.full((src.shape[0], 1), BOS, dtype=torch.long)
        outs = []
        for _ in range(mxlen):
            o, h = self.decoder(self.tgt_embed(tok), h)
            tok = self.proj(o).argmax(-1)
            outs.append(tok)
        return torch.cat(outs, 1)


class TokenAccuracy:
    def __init__(self):
        self.correct = torch.zeros((), dtype=torch.long)
        self.total = 0

    def update(self, pred, gold):
        self.correct += (pred == gold).sum()
        self.total += gold.numel()

    def value(self):
        return self.correct.item() / max(self.total, 1)


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


class Seq2SeqTrainer:
    def __init__(self, model, dev):
        self.model, self.dev = model, dev
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.train_loss = AverageMeter()
        self.dev_acc = TokenAccuracy()

    def train_step(self, src, tgt):
        logits = self.model(src, F.pad(tgt[:, :-1], (1, 0), value=BOS))
        loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.train_loss.update(loss.item(), src.shape[0])

    @torch.no_grad()
    def valid_step(self):
        self.model.eval()
        src, tgt = self.dev
        self.dev_acc.update(self.model.greedy(src), tgt)
        self.model.train()


def make_batches(n):
    torch.manual_seed(0)
    return [(torch.randint(2, V, (8, L), dtype=torch.uint8), torch.randint(2, V, (8, L), dtype=torch.uint8))
            for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    dev = (torch.randint(2, V, (8, L)), torch.randint(2, V, (8, L)))
    trainer = Seq2SeqTrainer(EncoderDecoder(), dev)
    for src, tgt in batches:
        trainer.train_step(src.long(), tgt.long())
        trainer.valid_step()
    return trainer.train_loss.sum / trainer.train_loss.count, trainer.dev_acc.value()
