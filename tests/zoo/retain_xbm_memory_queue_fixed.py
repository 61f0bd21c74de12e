# Source: https://github.com/bnu-wangxun/Deep_Metric/issues/45
# Shape: embeddings are detached before they enter the cross-batch memory (as in XBM), so the memory holds constants and a plain loss.backward() frees each step's graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class XBM:
    """Cross-batch memory: a FIFO ring buffer of (embedding, label) pairs from past iterations."""

    def __init__(self, memory_size, dim):
        self.K = memory_size
        self.feats = torch.zeros(self.K, dim)
        self.targets = torch.full((self.K,), -1, dtype=torch.long)
        self.ptr = 0
        self.full = False

    def get(self):
        if self.full:
            return self.feats, self.targets
        return self.feats[: self.ptr], self.targets[: self.ptr]

    def enqueue_dequeue(self, feats, targets):
        q_size = len(targets)
        if self.ptr + q_size > self.K:
            self.feats[-q_size:] = feats
            self.targets[-q_size:] = targets
            self.ptr = 0
            self.full = True
        else:
            self.feats[self.ptr: self.ptr + q_size] = feats
            self.targets[self.ptr: self.ptr + q_size] = targets
            self.ptr += q_size


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=0.5, epsilon=1e-5):
        super().__init__()
        self.margin = margin
        self.epsilon = epsilon

    def forward(self, inputs_col, targets_col, inputs_row, targets_row):
        sim_mat = inputs_col @ inputs_row.t()
        pos_mask = (targets_col.unsqueeze(1) == targets_row.unsqueeze(0)) & (sim_mat < 1 - self.epsilon)
        neg_mask = (targets_col.unsqueeze(1) != targets_row.unsqueeze(0)) & (sim_mat > self.margin)
        pos_loss = ((1 - sim_mat) * pos_mask).sum()
        neg_loss = (sim_mat * neg_mask).sum()
        return (pos_loss + neg_loss) / inputs_col.size(0)


class EmbeddingModel(nn.Module):
    """Frozen pretrained backbone + trainable embedding head (fine-tuning setup)."""

    def __init__(self, in_dim=128, feat_dim=256, embed_dim=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim), nn.ReLU())
        for p in self.backbone.parameters():
            p.requires_grad_(False)
        self.head = nn.Linear(feat_dim, embed_dim)

    def forward(self, x):
        with torch.no_grad():
            h = self.backbone(x)
        return F.normalize(self.head(h), dim=1)


def do_train(model, batches, optimizer, criterion, xbm, xbm_start_iter=2, xbm_weight=1.0):
    model.train()
    log = []
    for iteration, (images, targets) in enumerate(batches, 1):
        feats = model(images)
        loss = criterion(feats, targets, feats, targets)
        if iteration > xbm_start_iter:
            xbm.enqueue_dequeue(feats.detach(), targets.detach())
            xbm_feats, xbm_targets = xbm.get()
            xbm_loss = criterion(feats, targets, xbm_feats, xbm_targets)
            loss = loss + xbm_weight * xbm_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log.append(loss.item())
    return log


def make_batches(n, batch_size=16, in_dim=128, num_classes=8):
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(num_classes, in_dim, generator=g)
    out = []
    for _ in range(n):
        y = torch.randint(0, num_classes, (batch_size,), generator=g)
        out.append((centers[y] + 0.3 * torch.randn(batch_size, in_dim, generator=g), y))
    return out


def run(steps):
    torch.manual_seed(0)
    model = EmbeddingModel()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01, momentum=0.9)
    xbm = XBM(memory_size=1024, dim=32)
    log = do_train(model, make_batches(steps), optimizer, ContrastiveLoss(), xbm)
    return {"model": model, "xbm": xbm, "log": log}


if __name__ == "__main__":
    print(run(6)["log"])
