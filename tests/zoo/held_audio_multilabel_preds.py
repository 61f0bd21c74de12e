# Source: https://github.com/UCSD-E4E/acoustic-multiclass-training/pull/38
# Shape: the train loop appends the attached model outputs to pred for the epoch-end cmAP, so every batch's spectrogram-classifier graph is kept until the epoch ends.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"n_mels": 16, "frames": 20, "num_classes": 5, "batch": 4, "lr": 3e-4,
          "mixup_alpha": 0.4, "logging_freq": 5}


class BirdCallNet(nn.Module):
    def __init__(self, n_mels, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, spec):
        x = self.features(spec.unsqueeze(1))
        return self.classifier(x.mean(dim=(2, 3)))


def mixup(x, y, alpha):
    lam = torch.distributions.Beta(alpha, alpha).sample()
    perm = torch.arange(x.size(0) - 1, -1, -1)
    return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm]


def map_score(pred, label):
    order = pred.argsort(0, descending=True)
    hits = torch.gather(label, 0, order)
    prec = hits.cumsum(0) / torch.arange(1, hits.size(0) + 1).unsqueeze(1)
    return ((prec * hits).sum(0) / hits.sum(0).clamp(min=1)).mean().item()


def train(model, data_loader, optimizer, scheduler, config):
    model.train()
    running_loss = 0.0
    pred, label = [], []
    log = []
    for i, (mels, labels) in enumerate(data_loader):
        mels, labels = mixup(mels, labels, config["mixup_alpha"])
        optimizer.zero_grad()
        outputs = model(mels)
        loss = F.binary_cross_entropy_with_logits(outputs, labels)
        loss.backward()
        optimizer.step()
        scheduler.step()
        running_loss += loss.item()
        pred.append(outputs)  # TLK102
        label.append(labels)
        if (i + 1) % config["logging_freq"] == 0:
            log.append(running_loss / (i + 1))
    all_pred = torch.cat(pred).sigmoid()
    all_label = (torch.cat(label) > 0.5).float()
    return map_score(all_pred.detach(), all_label), log


def make_batches(n):
    c = CONFIG
    return [(torch.randn(c["batch"], c["n_mels"], c["frames"]),
             (torch.rand(c["batch"], c["num_classes"]) > 0.6).float()) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = BirdCallNet(CONFIG["n_mels"], CONFIG["num_classes"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=CONFIG["lr"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(len(batches), 1))
    train(model, batches, optimizer, scheduler, CONFIG)
