# Source: https://github.com/zyh-uaiaaaa/Erasing-Attention-Consistency/issues/11
# Shape: a facial-expression trainer whose model returns (logits, attention heatmap) runs two forward passes per batch (image and its flip), adds an attention-consistency loss from a helper, and sums the combined attached loss into running_loss, which train() returns in a (acc, loss) tuple; the epoch's graphs stay chained to running_loss. The integer correct-count sum and the no_grad test() are harmless.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 60


class Model(nn.Module):
    def __init__(self, num_classes=7):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        feat = self.features(x)
        logits = self.fc(feat.mean(dim=(2, 3)))
        hm = torch.einsum("nchw,kc->nkhw", feat, self.fc.weight)
        return logits, hm


def attention_consistency_loss(hm1, hm2, logits):
    hm2_flipped = torch.flip(hm2, dims=[3])
    weight = F.softmax(logits, dim=1).detach()[:, :, None, None]
    return ((hm1 - hm2_flipped) ** 2 * weight).mean()


def loader(n):
    for _ in range(n):
        imgs = torch.randn(8, 3, 16, 16)
        yield imgs, torch.randint(0, 7, (8,)), torch.flip(imgs, dims=[3])


def train(model, train_loader, optimizer, lam=5.0):
    running_loss = 0.0
    iter_cnt = 0
    correct_sum = 0
    n_samples = 0
    model.train()
    for imgs1, labels, imgs2 in train_loader:
        output, hm1 = model(imgs1)
        output_flip, hm2 = model(imgs2)
        loss = F.cross_entropy(output, labels) + lam * attention_consistency_loss(hm1, hm2, output)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        iter_cnt += 1
        _, predicts = torch.max(output, 1)
        correct_sum += torch.eq(predicts, labels).sum()
        n_samples += labels.size(0)
        running_loss += loss  # TLK101
    running_loss = running_loss / iter_cnt
    acc = correct_sum.float() / float(n_samples)
    return acc, running_loss


def test(model, test_loader):
    with torch.no_grad():
        model.eval()
        running_loss, iter_cnt = 0.0, 0
        for imgs, labels, _ in test_loader:
            outputs, _ = model(imgs)
            running_loss += F.cross_entropy(outputs, labels)
            iter_cnt += 1
        return running_loss / iter_cnt


model = Model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=1e-4)
train_acc, train_loss = train(model, loader(STEPS), optimizer)
test_loss = test(model, loader(10))
print(f"acc {train_acc.item():.3f} train {float(train_loss):.3f} test {test_loss.item():.3f}")
