# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/356
# Shape: self.prototypes is updated each step as a momentum mix of the current (attached) projected features, so the next loss reaches into the previous step's graph; the overridden backward hook passes retain_graph=True to silence the second-backward error, and every step's graph stays chained to the prototypes.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModuleStub(nn.Module):
    def __init__(self):
        super().__init__()
        self.logged_metrics = {}

    def log(self, name, value, prog_bar=False):
        self.logged_metrics[name] = float(value)

    def backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)


class LitPrototypeClassifier(LightningModuleStub):
    def __init__(self, in_dim=48, feat_dim=128, num_classes=8, momentum=0.9, temperature=0.1, lr=1e-3):
        super().__init__()
        self.projector = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, num_classes))
        self.momentum = momentum
        self.temperature = temperature
        self.lr = lr
        self.num_classes = num_classes
        self.prototypes = torch.zeros(num_classes, feat_dim)

    def forward(self, x):
        feats = self.projector(x)
        return feats, self.head(feats)

    def update_prototypes(self, feats, labels):
        onehot = F.one_hot(labels, self.num_classes).float()
        counts = onehot.sum(0).clamp(min=1.0).unsqueeze(1)
        class_means = onehot.t() @ feats / counts
        present = (onehot.sum(0) > 0).float().unsqueeze(1)
        self.prototypes = present * (self.momentum * self.prototypes + (1 - self.momentum) * class_means) + (1 - present) * self.prototypes

    def training_step(self, batch, batch_idx):
        x, y = batch
        feats, logits = self(x)
        ce = F.cross_entropy(logits, y)
        proto_logits = F.normalize(feats, dim=1) @ F.normalize(self.prototypes + 1e-6, dim=1).t() / self.temperature
        proto_loss = F.cross_entropy(proto_logits, y)
        loss = ce + 0.5 * proto_loss
        self.update_prototypes(feats, y)
        self.log("train/ce", ce.item())
        self.log("train/proto", proto_loss.item())
        return loss

    def backward(self, loss, *args, **kwargs):
        loss.backward(retain_graph=True)  # TLK202

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def fit(module, batches):
    optimizer = module.configure_optimizers()
    for batch_idx, batch in enumerate(batches):
        optimizer.zero_grad()
        loss = module.training_step(batch, batch_idx)
        module.backward(loss)
        optimizer.step()
    return module.logged_metrics


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        x = torch.randn(64, 48, generator=g)
        y = torch.randint(0, 8, (64,), generator=g)
        batches.append((x, y))
    return batches


def run(batches):
    torch.manual_seed(0)
    model = LitPrototypeClassifier()
    metrics = fit(model, batches)
    return metrics["train/ce"] + metrics["train/proto"]


if __name__ == "__main__":
    print(run(make_batches(5)))
