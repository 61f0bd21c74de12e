# Source: https://github.com/hszhao/semseg/issues/60
# Shape: After each training step the trainer runs a validation forward on held-out samples without torch.no_grad and collects the logits in a list for an epoch-level metric.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, n_cls, 1))

    def forward(self, x):
        return self.body(x)


def intersection_and_union(pred, target, n_cls=3):
    inter = torch.stack([((pred == c) & (target == c)).sum() for c in range(n_cls)])
    union = torch.stack([((pred == c) | (target == c)).sum() for c in range(n_cls)])
    return inter, union


class SegTrainer:
    def __init__(self):
        self.net = SegNet()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        self.val_logits, self.val_targets = [], []

    def train_step(self, img, tgt):
        self.net.train()
        objective = F.cross_entropy(self.net(img), tgt)
        self.opt.zero_grad()
        objective.backward()
        self.opt.step()
        return objective.item()

    def predict(self, img):
        self.net.eval()
        return self.net(img)

    def fit(self, loader):
        self.val_logits, self.val_targets = [], []
        for img, tgt in loader:
            self.train_step(img[:3], tgt[:3])
            logits = self.predict(img[3:])
            self.val_logits.append(logits)  # TLK102
            self.val_targets.append(tgt[3:])
        return self.epoch_miou()

    def epoch_miou(self):
        inter = union = 0
        for logits, tgt in zip(self.val_logits, self.val_targets):
            i, u = intersection_and_union(logits.argmax(1), tgt)
            inter, union = inter + i, union + u
        return (inter.float() / union.clamp_min(1).float()).mean().item()


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 3, 10, 10, generator=g), torch.randint(0, 3, (4, 10, 10), generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    print(f"mIoU {SegTrainer().fit(batches):.3f}")


if __name__ == "__main__":
    run(make_batches())
