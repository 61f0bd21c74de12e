# Source: https://github.com/samuelyu2002/ImVisible/issues/2
# Shape: A multi-task (regression + classification) AMP training loop keeps three running sums by adding the total, MSE and cross-entropy loss tensors each step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeadNet(nn.Module):
    def __init__(self, in_dim=20, hidden=64, n_classes=5, n_reg=4):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.reg_head = nn.Linear(hidden, n_reg)
        self.cls_head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.trunk(x)
        return self.reg_head(h), self.cls_head(h)


def train_one_epoch(model, loader, optimizer, scaler, device, mse_weight=1.0):
    model.train()
    running_loss = 0.0
    running_loss_mse = 0.0
    running_loss_ce = 0.0
    n_batches = 0
    for inputs, reg_target, cls_target in loader:
        inputs = inputs.to(device)
        reg_target, cls_target = reg_target.to(device), cls_target.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cpu", enabled=False):
            reg_out, cls_out = model(inputs)
            mse = F.mse_loss(reg_out, reg_target)
            cross_entropy = F.cross_entropy(cls_out, cls_target)
            loss = mse_weight * mse + cross_entropy
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        scaler.step(optimizer)
        scaler.update()
        running_loss += loss.item()
        running_loss_mse += mse.item()
        running_loss_ce += cross_entropy.item()
        n_batches += 1
    n_batches = max(n_batches, 1)
    return {
        "loss": float(running_loss) / n_batches,
        "mse": float(running_loss_mse) / n_batches,
        "ce": float(running_loss_ce) / n_batches,
    }


def make_batches(n=24, seed=0, bs=16, in_dim=20):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(in_dim, 4, generator=g)
    batches = []
    for _ in range(n):
        x = torch.randn(bs, in_dim, generator=g)
        y_reg = x @ w + 0.1 * torch.randn(bs, 4, generator=g)
        y_cls = (x[:, :5].argmax(dim=1))
        batches.append((x, y_reg, y_cls))
    return batches


def run(batches):
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = TwoHeadNet().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    stats = train_one_epoch(model, batches, optimizer, scaler, device)
    print(stats)
    return stats


if __name__ == "__main__":
    run(make_batches())
