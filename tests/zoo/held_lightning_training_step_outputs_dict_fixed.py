# Source: https://github.com/sktime/pytorch-forecasting/pull/1924
# Shape: a Lightning-style module collects step predictions for an epoch-end metric, but stores y_hat.detach(), so no forward graph is kept.
# Verdict: clean
"""Lightning-like structure written with plain stand-ins (no lightning import)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

IN, HID, HORIZON, BATCH = 12, 24, 3, 8


class MiniLightningModule(nn.Module):
    def log(self, name, value):
        self.logged.setdefault(name, []).append(float(value))


class LitForecaster(MiniLightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(IN, HID), nn.ReLU(), nn.Linear(HID, HID), nn.ReLU())
        self.head = nn.Linear(HID, HORIZON)
        self.training_step_outputs = []
        self.logged = {}

    def forward(self, x):
        return self.head(self.encoder(x))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=3e-3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = F.smooth_l1_loss(y_hat, y)
        self.log("train_loss", loss.item())
        self.training_step_outputs.append({"y_hat": y_hat.detach(), "y": y})
        return loss

    def on_train_epoch_end(self):
        y_hat = torch.cat([o["y_hat"] for o in self.training_step_outputs])
        y = torch.cat([o["y"] for o in self.training_step_outputs])
        mae = (y_hat - y).abs().mean()
        self.log("train_mae_epoch", mae.item())
        self.training_step_outputs.clear()


class MiniTrainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        for _ in range(self.max_epochs):
            for batch_idx, batch in enumerate(train_dataloader):
                optimizer.zero_grad()
                loss = module.training_step(batch, batch_idx)
                loss.backward()
                optimizer.step()
            module.on_train_epoch_end()


def make_batches(n):
    g = torch.Generator().manual_seed(4)
    out = []
    for _ in range(n):
        x = torch.randn(BATCH, IN, generator=g)
        y = x[:, :HORIZON] * 0.5 + 0.1 * torch.randn(BATCH, HORIZON, generator=g)
        out.append((x, y))
    return out


def run(batches):
    torch.manual_seed(0)
    module = LitForecaster()
    MiniTrainer(max_epochs=1).fit(module, batches)
    return module.logged["train_mae_epoch"]


if __name__ == "__main__":
    print(run(make_batches(20)))
