# Source: https://github.com/BatsResearch/labelmodels/issues/4
# Shape: an AverageMeter for a CTC acoustic model is fed the attached loss tensor, so its running sum keeps every utterance batch's graph alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    """Running average, the usual ImageNet-example style."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum = self.sum + val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(1, self.count)


class AcousticModel(nn.Module):
    def __init__(self, n_mels=8, hidden=16, vocab=6):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, hidden, kernel_size=3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, feats):
        x = F.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.head(x).log_softmax(-1)


def make_batches(n):
    g = torch.Generator().manual_seed(3)
    out = []
    for _ in range(n):
        feats = torch.randn(4, 20, 8, generator=g)
        targets = torch.randint(1, 6, (4, 5), generator=g)
        out.append((feats, targets))
    return out


def run(batches):
    model = AcousticModel()
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = AverageMeter("ctc")
    for feats, targets in batches:
        log_probs = model(feats)
        in_lens = torch.full((feats.size(0),), log_probs.size(1), dtype=torch.long)
        tgt_lens = torch.full((feats.size(0),), targets.size(1), dtype=torch.long)
        loss = ctc(log_probs.transpose(0, 1), targets, in_lens, tgt_lens)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.update(loss, feats.size(0))  # TLK101
    return float(losses.avg)


if __name__ == "__main__":
    print(run(make_batches(5)))
