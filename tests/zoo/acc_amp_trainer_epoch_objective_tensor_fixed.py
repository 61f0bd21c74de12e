# Source: https://github.com/boschresearch/Continuous-Recurrent-Units/pull/4
# Shape: An AMP Trainer.train_one_epoch keeps a running epoch objective as objective.item() * batch size, behind a tqdm-style postfix and early stopping.
# Verdict: clean
import torch
import torch.nn as nn


class _Bar:
    """Minimal stand-in for tqdm so the script has no dependency."""

    def __init__(self, it, desc=""):
        self.it, self.desc, self.postfix = it, desc, {}

    def __iter__(self):
        return iter(self.it)

    def set_postfix(self, **kw):
        self.postfix = kw


class EarlyStopping:
    def __init__(self, patience=3):
        self.patience, self.best, self.bad = patience, float("inf"), 0

    def step(self, metric):
        if metric < self.best - 1e-4:
            self.best, self.bad = metric, 0
        else:
            self.bad += 1
        return self.bad >= self.patience


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


class Trainer:
    def __init__(self, net, lr=3e-3):
        self.net = net
        self.crit = nn.SmoothL1Loss()
        self.opt = torch.optim.AdamW(net.parameters(), lr=lr)
        self.device_type = "cuda" if torch.cuda.is_available() else "cpu"
        self.use_amp = torch.cuda.is_available()
        self.scaler = torch.amp.GradScaler(self.device_type, enabled=self.use_amp)
        self.stopper = EarlyStopping()

    def train_one_epoch(self, loader):
        self.net.train()
        epoch_objective, seen = 0.0, 0
        bar = _Bar(loader, desc="train")
        for xb, yb in bar:
            self.opt.zero_grad(set_to_none=True)
            with torch.autocast(self.device_type, enabled=self.use_amp):
                pred = self.net(xb)
                objective = self.crit(pred, yb)
            self.scaler.scale(objective).backward()
            self.scaler.unscale_(self.opt)
            nn.utils.clip_grad_norm_(self.net.parameters(), 5.0)
            self.scaler.step(self.opt)
            self.scaler.update()
            epoch_objective += objective.item() * xb.size(0)
            seen += xb.size(0)
            bar.set_postfix(obj=f"{objective.item():.4f}")
        return float(epoch_objective) / max(seen, 1)

    @torch.no_grad()
    def validate(self, loader):
        self.net.eval()
        errs = [self.crit(self.net(xb), yb).item() for xb, yb in loader[:4]]
        return sum(errs) / len(errs)

    def fit(self, loader, epochs=1):
        for ep in range(epochs):
            tr = self.train_one_epoch(loader)
            va = self.validate(loader)
            print(f"epoch {ep}: train {tr:.4f} val {va:.4f}")
            if self.stopper.step(va):
                break


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(10, generator=g)
    out = []
    for _ in range(n):
        x = torch.randn(16, 10, generator=g)
        out.append((x, x @ w + 0.1 * torch.randn(16, generator=g)))
    return out


def run(batches):
    torch.manual_seed(0)
    Trainer(Regressor()).fit(batches)


if __name__ == "__main__":
    run(make_batches())
