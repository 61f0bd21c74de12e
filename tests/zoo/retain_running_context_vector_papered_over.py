# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
# Shape: A stateful classifier carries a running context vector across batches and silences "backward through the graph a second time" with retain_graph=True, so every backward walks and keeps the whole history.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class StreamClassifier(nn.Module):
    def __init__(self, d_in=10, d_hid=24, n_cls=3):
        super().__init__()
        self.enc = nn.Linear(d_in, d_hid)
        self.head = nn.Linear(d_hid, n_cls)

    def encode(self, x):
        return F.relu(self.enc(x))

    def classify(self, feats, context):
        return self.head(feats + context)


class StreamTrainer:
    def __init__(self, decay=0.9):
        self.clf = StreamClassifier()
        self.opt = torch.optim.Adam(self.clf.parameters(), lr=1e-3)
        self.decay = decay

    def train_one_epoch(self, loader):
        context = torch.zeros(24)
        correct, total = 0, 0
        for xb, yb in loader:
            feats = self.clf.encode(xb)
            context = self.decay * context + (1 - self.decay) * feats.mean(0)
            logits = self.clf.classify(feats, context)
            crit = F.cross_entropy(logits, yb)
            self.opt.zero_grad()
            crit.backward(retain_graph=True)  # TLK202
            self.opt.step()
            correct += (logits.argmax(1) == yb).sum().item()
            total += yb.numel()
        return correct / total


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(6, 10, generator=g), torch.randint(0, 3, (6,), generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    print(f"acc {StreamTrainer().train_one_epoch(batches):.3f}")


if __name__ == "__main__":
    run(make_batches())
