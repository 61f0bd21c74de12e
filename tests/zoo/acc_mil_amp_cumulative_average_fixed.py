# Source: https://github.com/Project-MONAI/tutorials/blob/main/pathology/multiple_instance_learning/panda_mil_train_evaluate_pytorch_gpu.py
# Shape: second clean variant: the caller detaches the loss before handing it to CumulativeAverage, so the meter never sees a graph-attached tensor.
# Verdict: clean
import torch
import torch.nn as nn


def make_batches(n, bs=4, n_tiles=8, tile_dim=48, num_classes=5):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        data = torch.randn(bs, n_tiles, tile_dim, generator=g)
        grade = torch.randint(0, num_classes + 1, (bs,), generator=g)
        target = (torch.arange(num_classes)[None] < grade[:, None]).float()
        out.append({"image": data, "label": target})
    return out


class MILModel(nn.Module):
    """Attention-MIL: per-tile encoder, attention pooling, ordinal head."""

    def __init__(self, tile_dim=48, hidden=64, num_classes=5):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(tile_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.attention = nn.Sequential(nn.Linear(hidden, 32), nn.Tanh(), nn.Linear(32, 1))
        self.myfc = nn.Linear(hidden, num_classes)

    def forward(self, x):
        h = self.encoder(x)
        a = torch.softmax(self.attention(h), dim=1)
        return self.myfc(torch.sum(a * h, dim=1))


class CumulativeAverage:
    """Keeps track of a running average (after monai.metrics.CumulativeAverage)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = None
        self.sum = torch.tensor(0, dtype=torch.float)
        self.count = torch.tensor(0, dtype=torch.float)

    def append(self, val, count=1):
        self.val = torch.as_tensor(val, dtype=torch.float)
        if self.val.requires_grad:
            self.val = self.val.detach().clone()
        count = torch.as_tensor(count, dtype=torch.float)
        val = count * self.val.cpu()
        nfin = torch.isfinite(val)
        if not torch.all(nfin):
            count = torch.where(nfin, count, torch.zeros_like(count))
            val = torch.where(nfin, val, torch.zeros_like(val))
        self.count = self.count + count
        self.sum = self.sum + val

    def aggregate(self):
        if self.val is None:
            return 0.0
        return float(torch.where(self.count > 0, self.sum / self.count, self.sum))


def train_epoch(model, loader, optimizer, scaler, amp=True):
    model.train()
    criterion = nn.BCEWithLogitsLoss()
    run_loss = CumulativeAverage()
    run_acc = CumulativeAverage()
    loss, acc = 0.0, 0.0
    for batch_data in loader:
        data, target = batch_data["image"], batch_data["label"]
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            logits = model(data)
            loss = criterion(logits.float(), target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        acc = (logits.sigmoid().sum(1).detach().round() == target.sum(1).round()).float().mean()
        run_loss.append(loss.detach(), count=data.shape[0])
        run_acc.append(acc, count=data.shape[0])
        loss = run_loss.aggregate()
        acc = run_acc.aggregate()
    return loss, acc, run_loss


def run(steps):
    model = MILModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0)
    scaler = torch.amp.GradScaler("cpu")
    loss, acc, meter = train_epoch(model, make_batches(steps), optimizer, scaler)
    return model, meter


if __name__ == "__main__":
    m, meter = run(20)
    print(meter.aggregate())
